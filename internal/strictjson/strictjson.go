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
// here, once, on the token stream of the standard decoder.
package strictjson

import (
	"bytes"
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
	path   string
	// objects: the member names seen, by their folded form, and whether
	// the next token is a member name (else a value); key is the member
	// whose value comes next.
	seen      map[string]string
	expectKey bool
	key       string
	// arrays: the index of the next element.
	index int
}

// Check walks raw's tokens and returns the first problem, or nil. A
// document that is not JSON at all is left to the decoder that follows
// (Check returns nil at the first syntax error), so its messages stay one.
func Check(raw []byte) *Problem {
	var first *Problem
	walk(raw, func(p *Problem) bool { first = p; return false })
	return first
}

// All returns every problem of raw, in document order (up to a syntax
// error), for a caller that reports every problem at once.
func All(raw []byte) []Problem {
	var all []Problem
	walk(raw, func(p *Problem) bool { all = append(all, *p); return true })
	return all
}

// walk calls report with each problem while it returns true.
func walk(raw []byte, report func(*Problem) bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var stack []*frame
	prev := int64(0)
	for {
		tok, err := dec.Token()
		if err != nil {
			return // io.EOF, or a syntax error the decoder will report
		}
		end := dec.InputOffset()
		seg := raw[prev:end]
		prev = end
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		// The path of the value this token is (or starts).
		path := ""
		if top != nil {
			if top.object {
				path = join(top.path, top.key)
			} else {
				path = top.path + "[" + strconv.Itoa(top.index) + "]"
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, path: path, seen: map[string]string{}, expectKey: true})
			case '[':
				stack = append(stack, &frame{path: path})
			default: // '}' or ']': the container is a finished value of its parent
				stack = stack[:len(stack)-1]
				valueDone(stack)
			}
			continue
		case string:
			if top != nil && top.object && top.expectKey {
				name := join(top.path, t)
				top.key, top.expectKey = t, false
				if !validString(seg, t) {
					if !report(&Problem{Code: CodeInvalidUTF8, Path: name, Message: "has a name that is not UTF-8 text"}) {
						return
					}
					continue
				}
				folded := fold(t)
				first, ok := top.seen[folded]
				switch {
				case !ok:
					top.seen[folded] = t
				case first == t:
					if !report(&Problem{Code: CodeDuplicateMember, Path: name, Message: "is given twice: give each member once"}) {
						return
					}
				default:
					if !report(&Problem{Code: CodeDuplicateMember, Path: name, Other: join(top.path, first),
						Message: fmt.Sprintf("is given twice, also as %q: member names differ only in case, and are case-sensitive", first)}) {
						return
					}
				}
				continue
			}
			if !validString(seg, t) {
				p := &Problem{Code: CodeInvalidUTF8, Path: path, Message: "is not UTF-8 text"}
				if path == "" {
					p.Message = "The body is a string that is not UTF-8 text."
				}
				if !report(p) {
					return
				}
			}
		}
		valueDone(stack)
	}
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

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// validString reports whether the decoded string s came from UTF-8 text
// in seg, its raw bytes (and the punctuation before them). The decoder
// turns invalid bytes and lone surrogate escapes into U+FFFD, so s holds
// more of them than seg spells out (literally or as \ufffd) exactly when
// something was replaced.
func validString(seg []byte, s string) bool {
	if !utf8.Valid(seg) {
		return false
	}
	n := strings.Count(s, "\uFFFD")
	if n == 0 {
		return true
	}
	spelled := bytes.Count(seg, []byte("\uFFFD")) + bytes.Count(bytes.ToLower(seg), []byte(`\ufffd`))
	return n <= spelled
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
