// Command testrun builds test binaries into a directory kept between runs,
// then runs them as `go test` runs a package list: `make test` uses it.
//
// Why not `go test` alone (docs/testing.md, "How make test schedules
// them"): `go test` links every test binary again each time it runs one —
// its cache keeps compiled packages, not linked test binaries — about 1.6 s
// of CPU each for 53 binaries, and make test built them once before the run
// and once in it: 106 links, 174 s of a 1,362 s run's CPU (docs/benchmarks.md,
// "The test suite"). `go test -c -o FILE` skips the link when FILE is
// already what it would write (its build ID says so), so binaries kept
// between runs link again only when their package or a dependency changed.
//
//	testrun build -dir DIR [-race] [-ldflags FLAGS] PKG...
//	testrun run -dir DIR [-race] [-p N] [-parallel N] [-timeout D] [-exec CMD] PKG...
//
// build writes DIR/<plain|race>/<round>/<name>.test (go test -c names a
// binary after its package's last element, so packages sharing one, such
// as cmd/web and internal/web, go in different rounds) and fails when a
// package does not compile. run runs those binaries, N packages at once in
// the order given, each in its package's directory, and prints what go test
// prints: the output of a failed package, an "ok" or "FAIL" line for each.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "build" && os.Args[1] != "run") {
		fmt.Fprintln(os.Stderr, "usage: testrun build|run -dir DIR [flags] PKG...")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("testrun "+os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", ".test-bin", "where the test binaries are kept")
	race := fs.Bool("race", false, "binaries built with the race detector")
	ldflags := fs.String("ldflags", "", "go test -ldflags (build)")
	procs := fs.Int("p", 3, "packages run at once (run)")
	parallel := fs.Int("parallel", 4, "-test.parallel (run)")
	timeout := fs.Duration("timeout", 30*time.Minute, "-test.timeout (run)")
	execCmd := fs.String("exec", "", "a command that runs each binary, as go test -exec (run)")
	_ = fs.Parse(os.Args[2:])

	pkgs, err := list(fs.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		os.Exit(1)
	}
	kind := "plain"
	if *race {
		kind = "race"
	}
	root := filepath.Join(*dir, kind)
	if os.Args[1] == "build" {
		err = build(root, *race, *ldflags, pkgs)
	} else {
		err = run(root, pkgs, *procs, strings.Fields(*execCmd),
			[]string{"-test.paniconexit0", "-test.count=1", "-test.timeout=" + timeout.String(), "-test.parallel=" + strconv.Itoa(*parallel)})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		os.Exit(1)
	}
}

// pkg is a package of the list, with where its binary goes.
type pkg struct {
	importPath, dir string
	tests           bool // it has test files
	round           int  // how many earlier packages of the list share its last element
}

func (p pkg) binary(root string) string {
	return filepath.Join(root, strconv.Itoa(p.round), path.Base(p.importPath)+".test")
}

// list resolves the patterns with go list, in their order, each package once.
func list(patterns []string) ([]pkg, error) {
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}{{len .XTestGoFiles}}"}, patterns...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []pkg
	seen := map[string]bool{}
	rounds := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		p := pkg{importPath: f[0], dir: f[1], tests: f[2] != "00"}
		if p.tests {
			p.round = rounds[path.Base(p.importPath)]
			rounds[path.Base(p.importPath)]++
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, sc.Err()
}

// build runs go test -c once per round; a package that does not compile
// fails it (after every round was tried, so all the errors show).
func build(root string, race bool, ldflags string, pkgs []pkg) error {
	byRound := map[int][]string{}
	last := -1
	for _, p := range pkgs {
		if p.tests {
			byRound[p.round] = append(byRound[p.round], p.importPath)
			last = max(last, p.round)
		}
	}
	var failed error
	for r := 0; r <= last; r++ {
		out := filepath.Join(root, strconv.Itoa(r)) + string(filepath.Separator)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		args := []string{"test", "-c", "-vet=off", "-o", out}
		if race {
			args = append(args, "-race")
		}
		if ldflags != "" {
			args = append(args, "-ldflags="+ldflags)
		}
		cmd := exec.Command("go", append(args, byRound[r]...)...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			failed = errors.Join(failed, fmt.Errorf("go test -c (round %d): %w", r, err))
		}
	}
	return failed
}

// run runs the binaries, procs at once, starting them in the list's order,
// and reports each as it ends.
func run(root string, pkgs []pkg, procs int, wrap, testFlags []string) error {
	var mu sync.Mutex // one package's report at a time
	report := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Print(s)
	}
	work := make(chan pkg)
	var wg sync.WaitGroup
	var failures int
	for range max(procs, 1) {
		wg.Go(func() {
			for p := range work {
				if !runOne(root, p, wrap, testFlags, report) {
					mu.Lock()
					failures++
					mu.Unlock()
				}
			}
		})
	}
	for _, p := range pkgs {
		if !p.tests {
			report(fmt.Sprintf("?   \t%s\t[no test files]\n", p.importPath))
			continue
		}
		work <- p
	}
	close(work)
	wg.Wait()
	if failures > 0 {
		return fmt.Errorf("%d of the packages failed", failures)
	}
	return nil
}

// runOne runs p's binary in p's directory; its output is printed only when
// it fails, as go test does for a package list.
func runOne(root string, p pkg, wrap, testFlags []string, report func(string)) bool {
	bin, err := filepath.Abs(p.binary(root))
	if err != nil {
		report(fmt.Sprintf("FAIL\t%s\t%v\n", p.importPath, err))
		return false
	}
	argv := append(append(append([]string{}, wrap...), bin), testFlags...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start).Seconds()
	if err == nil {
		report(fmt.Sprintf("ok  \t%s\t%.3fs\n", p.importPath, took))
		return true
	}
	text := out.String()
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	report(fmt.Sprintf("%s%s\nFAIL\t%s\t%.3fs\n", text, err, p.importPath, took))
	return false
}
