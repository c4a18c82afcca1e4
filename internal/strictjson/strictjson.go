// Package strictjson finds what encoding/json lets through silently in a
// JSON document: a member given twice, two members whose names differ only
// in case, and text that is not UTF-8. Every JSON body the app reads (the
// API's, the settings JSON editor's) passes Check before it is decoded
// (docs/api.md, "Errors"; docs/security.md).
//
// Why a token-level pre-scan: encoding/json (v1) cannot report any of
// these. Decoding into a struct or a map keeps the last of two equal
// members; a struct field matches a member name case-insensitively, so
// {"name": "a", "NAME": "b"} stores "b" with no error; and invalid UTF-8
// (or a lone surrogate escape such as "\ud800") becomes U+FFFD. A client
// and a proxy that read the same body differently is how smuggling starts,
// and a replacement character stored in a name is data lost without a
// word. encoding/json/v2 would reject duplicates and invalid UTF-8 itself,
// but it is still an experiment (GOEXPERIMENT=jsonv2), so the check is
// here, once: a walk over the tokens of a document json.Valid accepted,
// before the decoder reads it.
package strictjson

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Problem codes: stable, for clients and pages to switch on.
const (
	// CodeDuplicateMember: a member is given twice in one object, or
	// twice under names that differ only in case ("name" and "Name"),
	// which encoding/json reads as the same field.
	CodeDuplicateMember = "duplicate_member"
	// CodeInvalidUTF8: a string (a value or a member name) holds bytes that
	// are not UTF-8, or an escape of half a surrogate pair.
	CodeInvalidUTF8 = "invalid_utf8"
)

// Problem is the first thing Check found wrong.
type Problem struct {
	Code string
	// Path names the member: "name", "address.city", "tags[2]"; for a
	// duplicate, the second spelling. "" for the document itself.
	Path string
	// Message is an English sentence fragment for the API ("is given
	// twice"); pages word their own from Code.
	Message string
	// Other is the first spelling of a case-variant duplicate.
	Other string
}

func (p *Problem) Error() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// frame is one open object or array.
type frame struct {
	object bool
	// objects: the member names seen, by their folded form, and whether
	// the next string is a member name (else a value); key is the member
	// whose value comes next.
	seen      map[string]string
	expectKey bool
	key       string
	// arrays: the index of the next element.
	index int
}

// Check walks raw's tokens and returns the first problem, or nil. A
// document that is not JSON at all is left to the decoder that follows
// (Check returns nil), so its messages stay one.
func Check(raw []byte) *Problem {
	var first *Problem
	walk(raw, func(p *Problem) bool { first = p; return false })
	return first
}

// MaxProblems bounds what All returns: a document can be made of nothing
// but repeated members, and each problem carries its path, so an unbounded
// list let one request allocate gigabytes (a 622 KB body nested 8,000 deep:
// 5.8 GB, found in review).
const MaxProblems = 20

// MaxPathLen bounds a problem's path: a deeply nested value keeps the path's
// end, "…" and the last MaxPathLen bytes.
const MaxPathLen = 200

// All returns the problems of raw, in document order, at most MaxProblems,
// for a caller that reports every problem at once.
func All(raw []byte) []Problem {
	var all []Problem
	walk(raw, func(p *Problem) bool { all = append(all, *p); return len(all) < MaxProblems })
	return all
}

// walk calls report with each problem while it returns true.
//
// It is a scanner of its own over a document json.Valid accepted, rather
// than encoding/json's Decoder.Token: Token allocates for every token, and
// a 1 MiB body of small values took 0.3 s that way, against a few
// milliseconds here (BenchmarkCheck). Being valid JSON, the document needs
// no error handling beyond what it checks: strings (their bytes and their
// \u escapes) and member names.
func walk(raw []byte, report func(*Problem) bool) {
	if !json.Valid(raw) {
		return
	}
	var stack []*frame
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
		case '{':
			stack = append(stack, &frame{object: true, seen: map[string]string{}, expectKey: true})
			i++
		case '[':
			stack = append(stack, &frame{})
			i++
		case '}', ']':
			stack = stack[:len(stack)-1]
			valueDone(stack)
			i++
		case '"':
			end, escaped, valid := scanString(raw, i)
			var top *frame
			if len(stack) > 0 {
				top = stack[len(stack)-1]
			}
			if top != nil && top.object && top.expectKey {
				name := string(raw[i+1 : end-1])
				if escaped {
					_ = json.Unmarshal(raw[i:end], &name) // valid JSON: cannot fail
				}
				top.key, top.expectKey = name, false
				if p := memberProblem(stack, top, name, valid); p != nil && !report(p) {
					return
				}
			} else {
				if !valid {
					p := &Problem{Code: CodeInvalidUTF8, Path: path(stack), Message: "is not UTF-8 text"}
					if p.Path == "" {
						p.Message = "The body is a string that is not UTF-8 text."
					}
					if !report(p) {
						return
					}
				}
				valueDone(stack)
			}
			i = end
		default: // a number, true, false or null: up to the next delimiter
			for i < len(raw) && !delimiter(raw[i]) {
				i++
			}
			valueDone(stack)
		}
	}
}

// delimiter reports whether c ends a number or a literal.
func delimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ']', '}':
		return true
	}
	return false
}

// memberProblem checks the member name of top (the innermost object),
// recording it as seen.
func memberProblem(stack []*frame, top *frame, name string, valid bool) *Problem {
	if !valid {
		top.key = strings.ToValidUTF8(name, "\uFFFD") // the path is shown, and sent as JSON
		return &Problem{Code: CodeInvalidUTF8, Path: path(stack), Message: "has a name that is not UTF-8 text"}
	}
	folded := fold(name)
	first, ok := top.seen[folded]
	switch {
	case !ok:
		top.seen[folded] = name
		return nil
	case first == name:
		return &Problem{Code: CodeDuplicateMember, Path: path(stack), Message: "is given twice: give each member once"}
	}
	here := path(stack) // ends with name, the innermost object's key, unless cut (MaxPathLen)
	other := first
	if strings.HasSuffix(here, name) {
		other = here[:len(here)-len(name)] + first
	}
	return &Problem{Code: CodeDuplicateMember, Path: here, Other: other,
		Message: fmt.Sprintf("is given twice, also as %q: member names differ only in case, and are case-sensitive", first)}
}

// path names the value the stack is at: "a.b[2].c".
func path(stack []*frame) string {
	var b strings.Builder
	for _, f := range stack {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	p := b.String()
	if len(p) > MaxPathLen {
		cut := len(p) - MaxPathLen
		for cut < len(p) && !utf8.RuneStart(p[cut]) {
			cut++
		}
		p = "…" + p[cut:]
	}
	return p
}

// valueDone moves the innermost container past a finished value.
func valueDone(stack []*frame) {
	if len(stack) == 0 {
		return
	}
	top := stack[len(stack)-1]
	if top.object {
		top.expectKey = true
	} else {
		top.index++
	}
}

// scanString reads the string that starts at raw[i] (a quote) of a valid
// document: end is just past its closing quote, escaped whether it holds a
// backslash, valid whether it is UTF-8 text, its bytes and its \u escapes
// (a high surrogate must be followed by a low one, and a low one never
// stands alone; encoding/json turns either into U+FFFD).
func scanString(raw []byte, i int) (end int, escaped, valid bool) {
	valid = true
	j := i + 1
	for {
		c := raw[j]
		switch {
		case c == '"':
			return j + 1, escaped, valid
		case c == '\\':
			escaped = true
			if raw[j+1] != 'u' {
				j += 2
				continue
			}
			r := hex4(raw[j+2 : j+6])
			j += 6
			switch {
			case r >= 0xD800 && r <= 0xDBFF:
				if j+6 <= len(raw) && raw[j] == '\\' && raw[j+1] == 'u' {
					if lo := hex4(raw[j+2 : j+6]); lo >= 0xDC00 && lo <= 0xDFFF {
						j += 6
						continue
					}
				}
				valid = false
			case r >= 0xDC00 && r <= 0xDFFF:
				valid = false
			}
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(raw[j:])
			if r == utf8.RuneError && size == 1 {
				valid = false
			}
			j += size
		}
	}
}

// hex4 is the value of four hex digits (a valid document's \u escape).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// fold is encoding/json's folding of member names (its foldName): two
// names with the same fold match the same struct field.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		b.WriteRune(unicode.ToUpper(unicode.ToLower(r)))
	}
	return b.String()
}
