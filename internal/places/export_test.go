package places

import "strings"

// AliasLines is aliases.tsv's alias and zone columns, for the tests.
func AliasLines() [][2]string {
	var out [][2]string
	for line := range strings.Lines(aliasData) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) >= 2 && !strings.HasPrefix(f[0], "#") {
			out = append(out, [2]string{f[0], f[1]})
		}
	}
	return out
}
