// Package docs holds fieldbrief's own notes (architecture.md is the map);
// its only Go is this test, which keeps the citations to it honest.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// citation is `page.md, "Section"` or `[page.md](page.md), "Section"`, the
// form code comments and docs use to point at a section (architecture.md,
// intro). The quoted section may follow a line break and a comment marker.
var citation = regexp.MustCompile(`([A-Za-z0-9_./-]+\.md)\)?,[ \t]*(?:\n[ \t]*(?://|#|--|\*)?[ \t]*)?"([^"\n]+(?:\n[ \t]*(?://|#|--|\*)[ \t]*[^"\n]+)?)"`)

// continuation is a line break inside a quoted section, with the comment
// marker of the next line.
var continuation = regexp.MustCompile(`\s*\n[ \t]*(?://|#|--|\*)?[ \t]*`)

// plain is a heading or a citation without the marks that differ between
// them: code spans and a named paragraph's bold and full stop.
func plain(s string) string {
	s = strings.ReplaceAll(s, "`", "")
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	return s
}

// boldTitle is a paragraph named in bold, "**Time input.** …", cited like
// a heading.
var boldTitle = regexp.MustCompile(`\*\*([^*\n]+)\*\*`)

// TestCitationsNameSectionsThatExist reads every source and doc file of the
// repository and fails on a citation whose page or section is missing: a
// section renamed or moved to another page leaves no comment pointing at
// nothing.
func TestCitationsNameSectionsThatExist(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]map[string]bool{} // page path → heading texts
	headingsOf := func(page string) map[string]bool {
		if h, ok := headings[page]; ok {
			return h
		}
		b, err := os.ReadFile(page)
		if err != nil {
			headings[page] = nil
			return nil
		}
		h := map[string]bool{}
		inFence := false
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				inFence = !inFence
			}
			if inFence || !strings.HasPrefix(line, "#") {
				continue
			}
			h[plain(strings.TrimLeft(line, "#"))] = true
		}
		for _, m := range boldTitle.FindAllStringSubmatch(string(b), -1) {
			h[plain(m[1])] = true
		}
		headings[page] = h
		return h
	}

	var broken []string
	checked := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			switch name {
			case ".git", "node_modules", "bin", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".md", ".sql", ".templ", ".js", ".css", ".sh", ".toml":
		default:
			if name != "Makefile" && name != "Dockerfile" {
				return nil
			}
		}
		if strings.HasSuffix(name, "_templ.go") {
			return nil
		}
		if filepath.Base(filepath.Dir(path)) == "migrations" && filepath.Ext(name) == ".sql" {
			// A merged migration is never edited, its comments included
			// (docs/worker.md, "Migrations"): a section renamed since is
			// found by its words, not fixed there.
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range citation.FindAllStringSubmatch(string(b), -1) {
			page, section := m[1], plain(continuation.ReplaceAllString(m[2], " "))
			if strings.Contains(page, "://") || strings.HasPrefix(section, " ") {
				continue
			}
			target := resolvePage(root, filepath.Dir(path), page)
			if target == "" {
				// Not one of our pages (a README of a dependency, a
				// placeholder in prose): only our docs are checked.
				continue
			}
			checked++
			h := headingsOf(target)
			if !h[section] {
				tr, _ := filepath.Rel(root, target)
				broken = append(broken, rel+": "+tr+", \""+section+"\"")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(broken)
	for _, b := range broken {
		t.Errorf("citation of a missing section: %s", b)
	}
	if checked < 100 {
		t.Fatalf("only %d citations found: the pattern no longer matches how we cite", checked)
	}
}

// resolvePage finds the cited page: beside the citing file, from the
// repository's root (docs/x.md) or in docs/ (a comment citing x.md).
func resolvePage(root, dir, page string) string {
	for _, p := range []string{filepath.Join(dir, page), filepath.Join(root, page), filepath.Join(root, "docs", page)} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}
