# Prints BenchmarkTick's metrics (go test -bench output on stdin) as the
# table of docs/benchmarks.md, "The tick": per org count, the steady tick, the
# worst case, the full scan and the plain candidate query (docs/decisions/0001-local-time-scheduling.md) and the AT TIME ZONE query on
# the same data, with the ratios measured in the same run.
/^BenchmarkTick\/orgs=/ {
	split($1, name, "[=-]")
	orgs = name[2]
	delete m
	for (i = 3; i < NF; i += 2) m[$(i + 1)] = $i
	rows[++n] = sprintf("| %9s | %8.1f | %8.1f | %8.0f | %8.0f | %7.1fx | %7.1fx | %8.0f | %8.0f | %6.2fx | %8.0f |",
		orgs, m["steady-ms/op"], m["steady-candidates/op"], m["adr-ms"], m["attz-ms"],
		m["adr/steady"], m["attz/steady"], m["full-ms"], m["full-cold-ms"], m["adr/full"], m["worst-ms"])
}
END {
	if (n == 0) exit
	print ""
	print "Tick (ms; ratios from the same run, on the same data):"
	print "|      orgs | steady   | read/tick | plain    | AT TZ    | plain/steady | ATTZ/steady | full     | full cold | plain/full | worst   |"
	print "|-----------|----------|----------|----------|----------|---------|---------|----------|----------|--------|----------|"
	for (i = 1; i <= n; i++) print rows[i]
}
