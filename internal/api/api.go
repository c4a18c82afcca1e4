package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/strictjson"
	"fieldbrief/internal/tokens"
)

// The JSON API for integrations (docs/api.md). Its requests carry an org's
// bearer token and nothing else: no session cookie is read and no CSRF
// token asked for (a cross-site page cannot set an Authorization header),
// and every answer, errors included, is JSON.

const ctxAPIToken = "fieldbrief.api_token"

// maxAPIBody is the largest request body the API reads (docs/api.md, "Conventions": 1 MiB).
const maxAPIBody = 1 << 20

// maxAPILimiters bounds the rate limiters kept in memory (one per token
// that made a request).
const maxAPILimiters = 10_000

// Serves reports whether the request is for the JSON API, which the
// browser-facing middleware (sessions, CSRF, forms, body limit) leaves alone.
func Serves(c echo.Context) bool {
	p := c.Request().URL.Path
	return p == "/api" || strings.HasPrefix(p, "/api/")
}

// Token is the API request's token, set by apiAuth (the zero Token on any
// other request).
func Token(c echo.Context) tokens.Token {
	t, _ := c.Get(ctxAPIToken).(tokens.Token)
	return t
}

// apiActor is who the audit log records for an API write: the token, by
// its name.
func apiActor(c echo.Context) audit.Actor {
	return audit.Actor{Email: Token(c).Name}
}

// apiAuth accepts "Authorization: Bearer fb_…" and nothing else; a
// missing, malformed, unknown or revoked token is 401 alike.
func (a *API) apiAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		scheme, token, _ := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
		if !strings.EqualFold(scheme, "Bearer") {
			token = ""
		}
		t, err := a.tokens.Authenticate(c.Request().Context(), strings.TrimSpace(token), a.now())
		if err != nil {
			return err
		}
		c.Set(ctxAPIToken, t)
		return next(c)
	}
}

// apiRateLimit holds each token to its rate (a token bucket per token,
// golang.org/x/time/rate). Over the limit: 429 with Retry-After in whole
// seconds. Every answer says where the token stands (docs/api.md, "Rate
// limit"), as GitHub's API does: X-RateLimit-Limit is the bucket (the
// requests a token may make at once), X-RateLimit-Remaining what is left
// of it after this request, X-RateLimit-Reset the seconds until it is full
// again (a bucket refills continuously, at the rate, rather than at a
// window's end).
func (a *API) apiRateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		now := a.now()
		lim := a.limits.Get(Token(c).ID, now)
		r := lim.ReserveN(now, 1)
		d := r.DelayFrom(now)
		if !r.OK() || d > 0 {
			r.CancelAt(now)
		}
		h := c.Response().Header()
		left := max(0, lim.TokensAt(now))
		h.Set("X-RateLimit-Limit", strconv.Itoa(lim.Burst()))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(int(math.Floor(left))))
		if per := float64(lim.Limit()); per > 0 && !math.IsInf(per, 1) {
			h.Set("X-RateLimit-Reset", strconv.Itoa(int(math.Ceil((float64(lim.Burst())-left)/per))))
		}
		if !r.OK() || d > 0 {
			h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(d.Seconds())))))
			return apperr.Errorf(apperr.TooMany, "This token is over its rate limit. Retry after the number of seconds in Retry-After.")
		}
		return next(c)
	}
}

// apiWholeSegments answers 404 for a path whose parameter spans segments.
// Echo lets a route's last parameter take the rest of the path, slashes
// included, so /api/v1/jobs/J-1/notes would reach job "J-1/notes" (and a
// PUT make it): an unknown path instead, as an integrator expects
// (docs/api.md, "Errors"). A reference with a slash in it is sent
// percent-encoded, as a path needs (docs/api.md, "Conventions"); echo's
// parameters are still encoded then, so only a real segment is refused.
func apiWholeSegments(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		for _, v := range c.ParamValues() {
			if strings.Contains(v, "/") {
				return echo.ErrNotFound
			}
		}
		return next(c)
	}
}

// reasonInsufficientScope is the code of a write with a read-only token.
const reasonInsufficientScope = "insufficient_scope"

// apiWrites admits a write only with a token whose scope is write
// (docs/api.md, "Tokens"): a read-only token's write is 403
// insufficient_scope, before its body is read.
func apiWrites(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if Token(c).Scope != tokens.ScopeWrite {
			return &apperr.Error{Code: apperr.Forbidden, Reason: reasonInsufficientScope,
				Message: "This token is read-only: it reads the org's records and writes none. Make a read-write token to write."}
		}
		return next(c)
	}
}

// apiErrorBody is every API error (docs/api.md, "Errors"). Fields is always present,
// empty unless input was invalid.
type apiErrorBody struct {
	Error apiErrorDetail `json:"error"`
}

type apiErrorDetail struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields"`
	// Codes has the stable code of each field's problem that has one
	// (internal/field's: "required", "too_long", …), beside the English
	// message in Fields; absent when none has.
	Codes map[string]string `json:"codes,omitempty"`
	// ETag is, on a 412, the record's current ETag when it exists (as the
	// ETag header): the version the client lost to.
	ETag string `json:"etag,omitempty"`
}

// apiErrorCode is the stable code clients switch on, one per status.
func apiErrorCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "bad_request"
	case http.StatusUnauthorized:
		return "unauthorized"
	case http.StatusForbidden:
		return "forbidden"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case http.StatusConflict:
		return "conflict"
	case http.StatusPreconditionFailed:
		return "precondition_failed"
	case http.StatusRequestEntityTooLarge:
		return "too_large"
	case http.StatusUnsupportedMediaType:
		return "unsupported_media_type"
	case http.StatusUnprocessableEntity:
		return "invalid"
	case http.StatusTooManyRequests:
		return "rate_limited"
	case http.StatusServiceUnavailable:
		return "unavailable"
	}
	return "internal"
}

// WriteError answers an API request's error as JSON, whatever the error:
// the envelope of docs/api.md, "Errors", its status from httpkit.StatusOf.
// The server's error handler calls it for every request Serves.
func WriteError(c echo.Context, err error) {
	status := httpkit.StatusOf(err)
	// A refusal in English through the catalog's one table (i18n.Refusal,
	// docs/i18n.md), beside the stable code; else the error's own message.
	msg, ok := i18n.English.Refusal(err)
	if !ok {
		msg = httpkit.MessageOf(err, http.StatusText(status))
	}
	if status == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="fieldbrief"`)
	}
	body := apiErrorBody{Error: apiErrorDetail{Code: apiErrorCode(status), Message: msg, Fields: map[string]string{}}}
	if status == http.StatusPreconditionFailed {
		body.Error.ETag = c.Response().Header().Get("ETag")
	}
	if status == http.StatusForbidden && apperr.ReasonOf(err) == reasonInsufficientScope {
		body.Error.Code = reasonInsufficientScope
	}
	if status == http.StatusUnprocessableEntity {
		body.Error.Fields, body.Error.Codes = fieldsOf(err), codesOf(err)
		if code := apiProblemCode(err); code != "" {
			body.Error.Code = code
		}
		if len(body.Error.Fields) > 0 {
			names := slices.Sorted(maps.Keys(body.Error.Fields))
			body.Error.Message = "Invalid input, nothing was saved: " + strings.Join(names, ", ") + " (see fields)."
		}
	}
	_ = c.JSON(status, body)
}

// fieldsOf collects the per-field messages of a validation error, in
// English (a refusal through the catalog's table, else its own message).
func fieldsOf(err error) map[string]string {
	fields := map[string]string{}
	if e, ok := apperr.As(err); ok {
		for _, f := range e.Fields {
			fields[f.Name], _ = i18n.English.FieldWords(f)
		}
	}
	return fields
}

// codesOf is the problem code of each field of err that has one, nil when none has.
func codesOf(err error) map[string]string {
	var codes map[string]string
	if e, ok := apperr.As(err); ok {
		for _, f := range e.Fields {
			if f.Code != "" {
				if codes == nil {
					codes = map[string]string{}
				}
				codes[f.Name] = f.Code
			}
		}
	}
	return codes
}

// readAPIBody reads a request body of at most maxAPIBody bytes into v: one
// JSON object, no unknown fields, nothing after it. Whatever is wrong, v
// is not to be used and the error says what (413 or 422).
func readAPIBody(c echo.Context, v any) error {
	r := c.Request()
	if ct := r.Header.Get(echo.HeaderContentType); ct != "" {
		mt, params, err := mime.ParseMediaType(ct)
		if err == nil && mt == mimeMergePatch {
			// A PUT replaces the whole record: read as one, a patch would
			// reset every member it leaves out (docs/api.md, "Syncing from another system").
			return apperr.Errorf(apperr.Unsupported,
				"PUT replaces the whole record, so it does not take a merge patch: send the patch with PATCH, or the whole record as application/json.")
		}
		if err != nil || (mt != echo.MIMEApplicationJSON && !strings.HasSuffix(mt, "+json")) {
			return apperr.Errorf(apperr.Unsupported, "Send the body as JSON with Content-Type: application/json.")
		}
		if err := utf8Only(params); err != nil {
			return err
		}
	}
	body, err := readJSONObject(c, "The body must be one JSON object.")
	if err != nil {
		return err
	}
	// Every member that is not a field, by its exact name, is named at
	// once: a client fixes them all in one round (encoding/json's
	// DisallowUnknownFields stops at the first, and matches in any case).
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err == nil {
		if err := unknownMembers(members, v); err != nil {
			return err
		}
	}
	return decodeOne(body, v, true)
}

// readJSONObject is what every JSON body the API takes goes through first
// (a PUT's, readAPIBody; a PATCH's, readMergePatch): at most maxAPIBody
// bytes (413), one JSON object (422 with notObject otherwise), and nothing
// encoding/json would read silently (a member given twice or in two cases,
// text that is not UTF-8: strictjson says why a pre-scan of the tokens is
// needed). The caller has checked the Content-Type.
func readJSONObject(c echo.Context, notObject string) ([]byte, error) {
	r := c.Request()
	if r.ContentLength > maxAPIBody {
		return nil, errAPIBodyTooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, maxAPIBody))
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return nil, errAPIBodyTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, apperr.Errorf(apperr.Invalid, "%s", notObject)
	}
	if p := strictjson.Check(body); p != nil {
		return nil, jsonProblem(p)
	}
	return body, nil
}

// decodeOne decodes body, one JSON value with nothing after it, into v;
// strict refuses members v has no field for.
func decodeOne(body []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apperr.Errorf(apperr.Invalid, "The body must be one JSON object with nothing after it.")
	}
	return nil
}

// unknownMembers is a 422 naming every member of a body that is not one of
// v's fields (its json names, exactly), nil when all are.
func unknownMembers(members map[string]json.RawMessage, v any) error {
	known := jsonNames(v)
	var fields []apperr.Field
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if !known[name] {
			fields = append(fields, apperr.Field{Name: name, Code: codeUnknownMember,
				Message: "unknown field: see docs/api.md for the fields this endpoint takes"})
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return &apperr.Error{Code: apperr.Invalid, Message: "unknown fields", Fields: fields}
}

// codeUnknownMember is the code of a member no field has.
const codeUnknownMember = "unknown_member"

// utf8Only refuses a body its Content-Type says is in another charset than
// UTF-8 (415): JSON is UTF-8 (docs/api.md, "Errors"), and a body read as
// UTF-8 that its sender encoded otherwise would be stored garbled.
// No charset, or utf-8 in any case, is UTF-8.
func utf8Only(params map[string]string) error {
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return errNotUTF8
	}
	return nil
}

var errNotUTF8 = apperr.Errorf(apperr.Unsupported,
	"Send the body in UTF-8: leave out the charset parameter of Content-Type or make it charset=utf-8.")

var errAPIBodyTooLarge = apperr.Errorf(apperr.TooLarge,
	"The body is larger than 1 MiB. Send one object per request.")

// jsonProblem is strictjson's finding as a 422 naming the member, whose
// code (duplicate_member, invalid_utf8) is also the envelope's (apiProblemCode).
func jsonProblem(p *strictjson.Problem) error {
	name := p.Path
	if name == "" {
		name = "body"
	}
	return &apperr.Error{Code: apperr.Invalid, Message: p.Error(),
		Fields: []apperr.Field{{Name: name, Code: p.Code, Message: p.Message}}}
}

// apiProblemCode is the envelope's code of a 422 about the body's JSON
// itself (strictjson's codes), "" for any other.
func apiProblemCode(err error) string {
	e, ok := apperr.As(err)
	if !ok || len(e.Fields) != 1 {
		return ""
	}
	switch code := e.Fields[0].Code; code {
	case strictjson.CodeDuplicateMember, strictjson.CodeInvalidUTF8:
		return code
	}
	return ""
}

// jsonError turns encoding/json's errors into messages naming the field.
func jsonError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return apperr.Errorf(apperr.Invalid, "The body is not valid JSON (at byte %d).", syntax.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return apperr.FieldError(field, "want a %s, got a JSON %s", jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Errorf(apperr.Invalid, "The body is not valid JSON: it ends too early.")
	}
	// DisallowUnknownFields: `json: unknown field "x"`, the only place the
	// name is given.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ = strconv.Unquote(name)
		return apperr.FieldError(name, "unknown field: see docs/api.md for the fields this endpoint takes")
	}
	return apperr.Errorf(apperr.Invalid, "The body could not be read as JSON: %v.", err)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "int", "int64", "int32", "float64":
		return "number"
	case "struct", "map":
		return "object"
	case "slice":
		return "array"
	}
	return goKind
}
