package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// apiDocs is the API's documentation, whose examples this test runs.
const apiDocs = "../../docs/api.md"

// docExample is one ```sh block of docs/api.md and the ```http block after
// it: the request, and the answer the docs promise.
type docExample struct {
	line    int // of the sh block, for messages
	command string
	status  int
	headers http.Header
	body    string // JSON, "" when the docs show none
}

// parseDocExamples reads every ```sh block and the ```http block that must
// follow it. An ```http block alone shows an answer without a runnable
// request (the 429, the 413) and is only checked to be well formed.
func parseDocExamples(t *testing.T, path string) []docExample {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []docExample
	var block []string
	lang, start, inBlock, n := "", 0, false, 0
	var pending *docExample
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case !inBlock && strings.HasPrefix(line, "```"):
			inBlock, lang, start, block = true, strings.TrimPrefix(line, "```"), n, nil
		case inBlock && line == "```":
			inBlock = false
			switch lang {
			case "sh":
				require.Nil(t, pending, "%s:%d: a ```sh block without its ```http answer before it", path, pending.lineOr(0))
				pending = &docExample{line: start, command: strings.Join(block, "\n")}
			case "http":
				status, headers, body := parseDocAnswer(t, fmt.Sprintf("%s:%d", path, start), block)
				if pending != nil {
					pending.status, pending.headers, pending.body = status, headers, body
					out = append(out, *pending)
					pending = nil
				}
			}
		case inBlock:
			block = append(block, line)
		}
	}
	require.NoError(t, sc.Err())
	require.False(t, inBlock, "%s: unclosed code block at line %d", path, start)
	require.Nil(t, pending, "%s:%d: the last ```sh block has no ```http answer", path, pending.lineOr(0))
	return out
}

func (e *docExample) lineOr(def int) int {
	if e == nil {
		return def
	}
	return e.line
}

// parseDocAnswer reads "HTTP/1.1 201 Created", headers, a blank line and a
// JSON body.
func parseDocAnswer(t *testing.T, where string, lines []string) (int, http.Header, string) {
	t.Helper()
	require.NotEmpty(t, lines, where)
	parts := strings.Fields(lines[0])
	require.True(t, len(parts) >= 2 && strings.HasPrefix(parts[0], "HTTP/"), "%s: want a status line, got %q", where, lines[0])
	status, err := strconv.Atoi(parts[1])
	require.NoError(t, err, where)
	headers := http.Header{}
	i := 1
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		k, v, ok := strings.Cut(lines[i], ":")
		require.True(t, ok, "%s: bad header line %q", where, lines[i])
		headers.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	body := strings.TrimSpace(strings.Join(lines[min(i, len(lines)):], "\n"))
	if body != "" {
		require.True(t, json.Valid([]byte(body)), "%s: the documented body is not JSON:\n%s", where, body)
	}
	return status, headers, body
}

// varyingKeys hold ids and instants that differ from run to run: the docs'
// value shows the shape, the test checks the key is there with that type.
var varyingKeys = map[string]bool{"id": true, "technician_id": true, "created_at": true, "updated_at": true,
	"next_cursor": true, "complete_until": true, "deleted_at": true,
	"completed_at": true, "generated_at": true, "day_start": true, "day_end": true}

// requireSubset checks that got holds everything want documents: objects
// may have more keys than documented, arrays must match element by element.
func requireSubset(t *testing.T, where, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		require.True(t, ok, "%s: %s is not an object: %v", where, path, got)
		for k, wv := range w {
			gv, ok := g[k]
			require.True(t, ok, "%s: %s.%s is documented but missing", where, path, k)
			if varyingKeys[k] {
				require.Equal(t, reflect.TypeOf(wv), reflect.TypeOf(gv), "%s: %s.%s", where, path, k)
				continue
			}
			requireSubset(t, where, path+"."+k, wv, gv)
		}
	case []any:
		g, ok := got.([]any)
		require.True(t, ok, "%s: %s is not an array: %v", where, path, got)
		require.Len(t, g, len(w), "%s: %s", where, path)
		for i := range w {
			requireSubset(t, where, fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
		}
	default:
		require.Equal(t, want, got, "%s: %s", where, path)
	}
}

// docIDs maps the ids the docs show to the ones a run made: ids are opaque
// (docs/security.md, "Ids and ETags"), so the docs' are examples. An id is
// learned from the first answer that documents it as its "id" and from
// then on stands for the run's in commands (an If-Match), headers (an ETag)
// and bodies (a 412's message).
type docIDs map[string]string

func (m docIDs) apply(s string) string {
	for doc, run := range m {
		s = strings.ReplaceAll(s, doc, run)
	}
	return s
}

// learn records the id of the record an answer documents, and its
// next_cursor (opaque too: a later example pages with it).
func (m docIDs) learn(t *testing.T, where string, want, got any) {
	w, _ := want.(map[string]any)
	g, _ := got.(map[string]any)
	if wc, ok := w["next_cursor"].(string); ok {
		gc, ok := g["next_cursor"].(string)
		require.True(t, ok, "%s: the answer has no next_cursor", where)
		m[wc] = gc
	}
	wid, ok := w["id"].(float64)
	if !ok {
		return
	}
	gid, ok := g["id"].(float64)
	require.True(t, ok, "%s: the answer has no id", where)
	doc, run := strconv.FormatFloat(wid, 'f', -1, 64), strconv.FormatFloat(gid, 'f', -1, 64)
	if prev, seen := m[doc]; seen {
		require.Equal(t, prev, run, "%s: the docs show id %s for two records", where, doc)
		return
	}
	require.GreaterOrEqual(t, len(doc), 12, "%s: the docs' id %s looks like a count; show an opaque one", where, doc)
	m[doc] = run
}

// TestAPIDocsExamplesRun runs every curl example of docs/api.md, in order,
// against a real server and database, and checks each answer against the
// one documented after it: status, the headers shown, and the body's
// documented keys. Docs that drift from the API fail here.
func TestAPIDocsExamplesRun(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	require.NoError(t, err, "the docs' examples need curl: apt-get install curl")
	examples := parseDocExamples(t, apiDocs)
	require.GreaterOrEqual(t, len(examples), 10, "suspiciously few examples")

	f := setup(t)
	f.setZone(f.orgA, "America/New_York")
	token := f.newToken(f.orgA, "Dispatch sync")
	// The briefing the docs read; its content is what the worker stores.
	_, err = f.db.Exec(context.Background(), `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, revision, generated_at, content)
		VALUES ($1, '2026-03-09', 'America/New_York', 'ready', 1, '2026-03-09T11:00:00Z', $2)`, f.orgA.ID,
		`{"date": "2026-03-09", "timezone": "America/New_York", "day_start": "2026-03-09T00:00:00-04:00",
		  "day_end": "2026-03-10T00:00:00-04:00", "generated_at": "2026-03-09T11:00:00Z", "technicians": [],
		  "unassigned": [], "overdue": [], "on_hold": [], "yesterday": {}, "totals": {}}`)
	require.NoError(t, err)

	// A job made on a screen, without a reference: the docs reach it by id.
	var screenJob int64
	require.NoError(t, f.db.QueryRow(context.Background(), `
		INSERT INTO jobs (org_id, customer, arrival_start, arrival_end) VALUES ($1, 'Walk-in', '2026-03-12T16:00Z', '2026-03-12T17:00Z')
		RETURNING id`, f.orgA.ID).Scan(&screenJob))

	dir := t.TempDir()
	ids := docIDs{"7340032998765432": strconv.FormatInt(screenJob, 10)}
	for i, ex := range examples {
		where := fmt.Sprintf("%s:%d", apiDocs, ex.line)
		bodyFile, headerFile := filepath.Join(dir, fmt.Sprintf("%d.body", i)), filepath.Join(dir, fmt.Sprintf("%d.headers", i))
		require.True(t, strings.HasPrefix(strings.TrimSpace(ex.command), "curl "), "%s: one curl command per block", where)
		cmd := exec.Command("sh", "-c", ids.apply(ex.command)+` -o "$DOC_BODY" -D "$DOC_HEADERS"`)
		cmd.Env = append(os.Environ(), "FIELDBRIEF_URL="+f.ts.URL, "FIELDBRIEF_TOKEN="+token,
			"DOC_BODY="+bodyFile, "DOC_HEADERS="+headerFile, "PATH="+filepath.Dir(curl)+":/usr/bin:/bin", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", where, out)

		headers, err := os.ReadFile(headerFile)
		require.NoError(t, err, where)
		res, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(headers))), nil)
		require.NoError(t, err, where)
		body, err := os.ReadFile(bodyFile)
		require.NoError(t, err, where)
		require.Equal(t, ex.status, res.StatusCode, "%s: %s", where, body)
		var want, got any
		if ex.body != "" {
			require.NoError(t, json.Unmarshal([]byte(ex.body), &want), where)
			require.NoError(t, json.Unmarshal(body, &got), "%s: %s", where, body)
			ids.learn(t, where, want, got)
			require.NoError(t, json.Unmarshal([]byte(ids.apply(ex.body)), &want), where)
		}
		for k, vs := range ex.headers {
			for j := range vs {
				vs[j] = ids.apply(vs[j])
			}
			require.Equal(t, vs, res.Header.Values(k), "%s: header %s", where, k)
		}
		require.Equal(t, "application/json", res.Header.Get("Content-Type"), where)
		if ex.body != "" {
			requireSubset(t, where, "body", want, got)
		}
	}
}
