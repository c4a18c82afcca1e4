package strictjson_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/strictjson"
)

func TestCheckFindsWhatEncodingJSONLetsThrough(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, doc, code, path string
	}{
		{"duplicate", `{"name":"a","name":"b"}`, strictjson.CodeDuplicateMember, "name"},
		{"case variant", `{"name":"a","NAME":"b"}`, strictjson.CodeDuplicateMember, "NAME"},
		{"Kelvin sign folds to k", `{"kind":"a","\u212aind":"b"}`, strictjson.CodeDuplicateMember, "\u212aind"},
		{"nested", `{"a":{"b":1,"c":[{"x":1},{"x":2,"X":3}]}}`, strictjson.CodeDuplicateMember, "a.c[1].X"},
		{"after a nested value", `{"a":{"b":1},"a":2}`, strictjson.CodeDuplicateMember, "a"},
		{"invalid byte in a value", "{\"name\":\"Jos\xe9\"}", strictjson.CodeInvalidUTF8, "name"},
		{"invalid byte in an array", "{\"to\":[\"ok\",\"b\xff\"]}", strictjson.CodeInvalidUTF8, "to[1]"},
		{"invalid byte in a name", "{\"n\xffme\":\"x\"}", strictjson.CodeInvalidUTF8, "n\uFFFDme"},
		{"lone surrogate escape", `{"name":"\ud800"}`, strictjson.CodeInvalidUTF8, "name"},
		{"surrogate pair then a lone one", `{"a":"\ud83d\ude00","b":"x\udc00"}`, strictjson.CodeInvalidUTF8, "b"},
	} {
		p := strictjson.Check([]byte(c.doc))
		require.NotNil(t, p, c.name)
		require.Equal(t, c.code, p.Code, c.name)
		require.Equal(t, c.path, p.Path, c.name)
		require.NotEmpty(t, p.Message, c.name)
	}
	// What it leaves alone: the same name in different objects, the
	// replacement character written out, syntax errors (the decoder's).
	for _, doc := range []string{
		`{"name":"a","b":{"name":"c"},"c":[{"name":1},{"name":2}]}`,
		`{"name":"\ufffd and \uFFFD and ` + "\uFFFD" + `"}`,
		`{"smile":"\ud83d\ude00 ` + "é" + `"}`,
		`{"a":`, `[1,2]`, `"x"`, ``, `{"a":1}{"a":1}`,
	} {
		require.Nil(t, strictjson.Check([]byte(doc)), doc)
	}
}

// The behaviour Check exists for: encoding/json keeps the last duplicate,
// matches names case-insensitively and replaces invalid UTF-8 silently. If
// a Go release changes that, this test says so.
func TestEncodingJSONIsLenient(t *testing.T) {
	t.Parallel()
	var v struct{ Name string }
	require.NoError(t, json.Unmarshal([]byte(`{"name":"a","NAME":"b"}`), &v))
	require.Equal(t, "b", v.Name)
	require.NoError(t, json.Unmarshal([]byte("{\"name\":\"Jos\xe9\"}"), &v))
	require.Equal(t, "Jos\uFFFD", v.Name)
}

func TestAllReportsEveryProblemInOrder(t *testing.T) {
	t.Parallel()
	all := strictjson.All([]byte(`{"a":1,"A":2,"b":"\ud800","c":{"d":1,"d":2},"e":["\udfff"]}`))
	var got []string
	for _, p := range all {
		got = append(got, p.Code+" "+p.Path)
	}
	require.Equal(t, []string{"duplicate_member A", "invalid_utf8 b", "duplicate_member c.d", "invalid_utf8 e[0]"}, got)
	require.Equal(t, "a", all[0].Other)
	require.Empty(t, strictjson.All([]byte(`{"a":1,"b":{"a":2}}`)))
}

// BenchmarkCheck: the worst bodies the API reads (1 MiB of the smallest
// values, or of members), which Decoder.Token took 0.3 s to walk.
func BenchmarkCheck(b *testing.B) {
	numbers := []byte(`{"a":[` + strings.Repeat("1,", 1<<19-4) + `1]}`)
	var m strings.Builder
	m.WriteString(`{"m0":1`)
	for i := 1; m.Len() < 1<<20-20; i++ {
		m.WriteString(`,"m` + strconv.Itoa(i) + `":"\u00e9"`)
	}
	m.WriteString("}")
	members := []byte(m.String())
	for _, c := range []struct {
		name string
		doc  []byte
	}{{"numbers", numbers}, {"members", members}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			for b.Loop() {
				if p := strictjson.Check(c.doc); p != nil {
					b.Fatal(p)
				}
			}
		})
	}
}

// FuzzCheck: Check never panics, and a valid document it passes is UTF-8
// throughout, and decodes without a replacement character it did not
// spell (so no bad escape slipped through).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1,"A":2}`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `[{"x":[1,{"y":"\ud83d\ude00"}]}]`,
		`{"a\u0041":1,"aa":2}`, `"\udc00"`, `{"":{"":[]}}`, `{"k":"\\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if strictjson.Check(raw) != nil || !json.Valid(raw) {
			return
		}
		if !utf8.Valid(raw) {
			t.Fatalf("passed a document that is not UTF-8: %q", raw)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // 1E700 is valid JSON, and no float64
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if n, m := strings.Count(string(raw), "\uFFFD")+strings.Count(strings.ToLower(string(raw)), `\ufffd`), strings.Count(string(again), "\uFFFD"); m > n {
			t.Fatalf("passed a document that decodes with %d replacement characters, %d spelled: %q", m, n, raw)
		}
	})
}

// A document of nothing but repeated members, nested deep, costs a bounded
// list of bounded paths (review finding: 5.8 GB for a 622 KB body).
func TestAllIsBounded(t *testing.T) {
	t.Parallel()
	const depth = 8000
	var b strings.Builder
	for range depth {
		b.WriteString(`{"a":`)
	}
	b.WriteString(`{"a":1`)
	for range 20000 {
		b.WriteString(`,"a":1`)
	}
	b.WriteString(`}`)
	for range depth {
		b.WriteString(`}`)
	}
	all := strictjson.All([]byte(b.String()))
	require.Len(t, all, strictjson.MaxProblems)
	for _, p := range all {
		require.LessOrEqual(t, len(p.Path), strictjson.MaxPathLen+len("…"))
		require.True(t, strings.HasPrefix(p.Path, "…"), p.Path[:20])
		require.Equal(t, strictjson.CodeDuplicateMember, p.Code)
	}
	// A long member name cut from its path still names the first spelling.
	long := strings.Repeat("x", 300)
	p := strictjson.Check([]byte(`{"` + long + `":1,"` + strings.ToUpper(long) + `":2}`))
	require.NotNil(t, p)
	require.Equal(t, long, p.Other)
}
