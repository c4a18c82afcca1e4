package schedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/strictjson"
	"fieldbrief/internal/text"
)

// Config is the fieldforce module's config document in org_module_configs:
// when the briefing runs and, optionally, who receives it.
type Config struct {
	Briefing BriefingConfig  `json:"briefing"`
	Delivery *DeliveryConfig `json:"delivery,omitempty"`
}

// BriefingConfig is when an org's daily briefing runs. Absent days mean every
// day; absent enabled means true.
type BriefingConfig struct {
	Timezone          string   `json:"timezone"`
	ScheduleLocalTime string   `json:"schedule_local_time"`
	Days              []string `json:"days,omitempty"`
	Enabled           *bool    `json:"enabled,omitempty"`
}

// Schedule is a validated BriefingConfig.
type Schedule struct {
	Zone    Zone
	At      LocalTime
	Days    DaySet
	Enabled bool
}

// FieldError is one problem with a config, at a JSON path such as
// "briefing.timezone", "briefing.days[2]" or "delivery.email.to[1]"; "" is
// the document itself.
type FieldError struct {
	Field, Message string
	// Code names the problem, for callers that say it in their own words
	// (the settings page; internal/web's settings_messages.go is the one
	// place that does): one of the Code… constants. Message says it for
	// the API, which names fields by path.
	Code string
	// At is where a problem with the document's syntax is: "line 2, column 15".
	At string
	// Count is how many items a list has, for CodeAddressesTooMany.
	Count int
}

// The codes of a FieldError.
const (
	CodeDocumentEmpty     = "document_empty"         // nothing but white space
	CodeJSONTruncated     = "json_truncated"         // the document ends too early
	CodeJSONSyntax        = "json_syntax"            // not JSON, at At
	CodeJSONTrailing      = "json_trailing"          // something after the document, at At
	CodeJSONInvalid       = "json_invalid"           // not JSON otherwise
	CodeObjectExpected    = "object_expected"        // the document or a section is not an object
	CodeUnknownField      = "unknown_field"          // a member we do not know
	CodeRepeatedField     = "repeated_field"         // a member given twice (or twice in different cases)
	CodeInvalidUTF8       = "invalid_utf8"           // a string that is not UTF-8 text (strictjson)
	CodeRequired          = "required"               // a section or value is missing
	CodeWrongType         = "wrong_type"             // a value of the wrong JSON type
	CodeZoneUnknown       = "zone_unknown"           // not a time zone we know (or none given)
	CodeTimeRequired      = "time_required"          // no schedule time
	CodeTimeFormat        = "time_format"            // not a time HH:MM between 00:00 and 23:59
	CodeDaysEmpty         = "days_empty"             // an empty list of days
	CodeDaysTooMany       = "days_too_many"          // more than 7 days
	CodeDayUnknown        = "day_unknown"            // not mon … sun
	CodeDayRepeated       = "day_repeated"           // a day listed twice
	CodeAddressesTooMany  = "addresses_too_many"     // more than MaxRecipients, Count of them
	CodeAddressesRequired = "addresses_required"     // email delivery to nobody
	CodeAddressInvalid    = "address_invalid"        // not an email address
	CodeAddressIPLiteral  = text.CodeAddressIP       // an address at an IP literal (root@[127.0.0.1])
	CodeAddressDotless    = text.CodeAddressDotless  // an address at a name without a dot (postmaster@localhost)
	CodeAddressInternal   = text.CodeAddressInternal // an address at an internal domain (.local, .internal, …)
	CodeAddressRepeated   = "address_repeated"       // an address listed twice
	CodeWebhookURL        = "webhook_url"            // the webhook URL's syntax; Message completes "The webhook URL …"
	CodeWebhookRefused    = "webhook_refused"        // the network policy refuses the webhook URL; Message is a sentence
	CodeSendWithin        = "send_within"            // delivery.send_within is not whole minutes from MinSendWithin to MaxSendWithin
)

// ValidationError lists every problem found in a config, so a form can show
// each message beside its field.
type ValidationError struct {
	Errors []FieldError
}

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		msgs[i] = fe.Message
		if fe.Field != "" {
			msgs[i] = fe.Field + ": " + fe.Message
		}
	}
	return "invalid fieldforce config: " + strings.Join(msgs, "; ")
}

// Unwrap makes the error an apperr Invalid one, with a problem per field,
// so it maps to 422 wherever errors are mapped.
func (e *ValidationError) Unwrap() error {
	fields := make([]apperr.Field, len(e.Errors))
	for i, fe := range e.Errors {
		fields[i] = apperr.Field{Name: fe.Field, Code: fe.Code, Message: fe.Message}
	}
	return &apperr.Error{Code: apperr.Invalid, Fields: fields}
}

// For returns the messages for field, "" if it has none.
func (e *ValidationError) For(field string) string {
	var msgs []string
	for _, fe := range e.Errors {
		if fe.Field == field {
			msgs = append(msgs, fe.Message)
		}
	}
	return strings.Join(msgs, "; ")
}

// DefaultSchedule is the schedule a new org starts with: weekdays at 08:00 UTC.
func DefaultSchedule() Schedule {
	return Schedule{
		Zone:    Zone{Name: "UTC", Loc: time.UTC},
		At:      LocalTime{Hour: 8},
		Days:    DaysOf(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday),
		Enabled: true,
	}
}

// ParseConfig strictly parses and validates a config document: unknown or
// duplicate fields, wrong types and trailing data are errors, and every
// problem is reported as a *ValidationError. It returns the config in its
// canonical form (see canonical), so storing it normalizes what the admin
// typed, and the schedule it describes.
func ParseConfig(raw []byte) (Config, Schedule, error) {
	var v validator
	c, ok := v.decode(raw)
	var s Schedule
	if ok {
		s = v.schedule(c)
	}
	// Delivery is checked even when the briefing is unusable, so one save
	// reports every problem.
	c.Delivery = v.delivery(c.Delivery)
	if err := v.err(); err != nil {
		return Config{}, Schedule{}, err
	}
	return c.canonical(s), s, nil
}

// canonical is c with its values in their one stored spelling: the zone's
// canonical name (aliases resolved), HH:MM, days Monday first, and the
// delivery as v.delivery left it. Optional fields the document left out stay
// out: "every day" and "enabled" are the documented defaults, and the stored
// document keeps what the admin wrote.
func (c Config) canonical(s Schedule) Config {
	b := c.Briefing
	b.Timezone = s.Zone.Name
	b.ScheduleLocalTime = s.At.String()
	if b.Days != nil {
		b.Days = s.Days.Names()
	}
	return Config{Briefing: b, Delivery: c.Delivery}
}

// JSON returns c as compact JSON, as it is: no validation. The configs
// ParseConfig and Schedule.Config return are canonical, so theirs is the
// stored form, and parsing it again gives the same config.
func (c Config) JSON() []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // unreachable: strings, string slices and bools always encode
	}
	return b
}

// Config returns the config document of s with every field spelled out: the
// zone's canonical name, days listed Monday first (all seven when every day
// runs) and enabled.
func (s Schedule) Config() Config {
	enabled := s.Enabled
	return Config{Briefing: BriefingConfig{
		Timezone:          s.Zone.Name,
		ScheduleLocalTime: s.At.String(),
		Days:              s.Days.Names(),
		Enabled:           &enabled,
	}}
}

// validator collects field errors across decoding and validation.
type validator struct {
	errs   []FieldError
	failed map[string]bool // the fields in errs, so has is not a scan of errs
}

func (v *validator) add(field, code, format string, args ...any) {
	v.addError(FieldError{Field: field, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) addError(fe FieldError) {
	v.errs = append(v.errs, fe)
	field := fe.Field
	if v.failed == nil {
		v.failed = map[string]bool{}
	}
	v.failed[field] = true
}

func (v *validator) has(field string) bool { return v.failed[field] }

func (v *validator) err() error {
	if len(v.errs) == 0 {
		return nil
	}
	return &ValidationError{Errors: v.errs}
}

// decode reads raw into a Config, checking structure and types only. It
// walks objects member by member rather than using encoding/json's struct
// decoding, which matches keys case-insensitively, keeps the last of duplicate
// keys and stops at the first unknown field. ok is false when the document has
// no usable briefing object; c.Delivery is decoded either way.
func (v *validator) decode(raw []byte) (c Config, ok bool) {
	doc, ok := v.document(raw)
	if !ok {
		return Config{}, false
	}
	top, ok := v.object("", doc, "briefing", "delivery")
	if !ok {
		return Config{}, false
	}
	c.Delivery = v.decodeDelivery(top["delivery"])
	if top["briefing"] == nil {
		v.add("briefing", CodeRequired, "is required")
		return c, false
	}
	m, ok := v.object("briefing", top["briefing"], "timezone", "schedule_local_time", "days", "enabled")
	if !ok {
		return c, false
	}
	v.briefing(&c.Briefing, m["timezone"], m["schedule_local_time"], m["days"], m["enabled"])
	return c, true
}

// briefing decodes the briefing object's members (nil: absent).
func (v *validator) briefing(b *BriefingConfig, timezone, at, days, enabled json.RawMessage) {
	v.value("briefing.timezone", timezone, &b.Timezone, "must be a string")
	v.value("briefing.schedule_local_time", at, &b.ScheduleLocalTime, `must be a string such as "08:00"`)
	b.Days = v.days(days)
	if enabled != nil {
		b.Enabled = new(bool)
		v.value("briefing.enabled", enabled, b.Enabled, "must be true or false")
	}
}

// Members is a config document given as the raw JSON of its members (nil:
// absent), for a document whose shape the caller has checked: an object
// with no members but briefing and delivery, briefing an object with no
// members but these four. The tick's candidate SQL checks that shape and
// returns the members as columns (docs/scheduling.md, "The candidate
// columns"), so the worker need not decode every document.
type Members struct {
	Timezone, ScheduleLocalTime, Days, Enabled, Delivery json.RawMessage
}

// ParseMembers is ParseConfig for a document given by its members: the
// same checks on the same values, so the same schedule or the same
// *ValidationError.
func ParseMembers(m Members) (Schedule, error) {
	var v validator
	var c Config
	c.Delivery = v.decodeDelivery(m.Delivery)
	v.briefing(&c.Briefing, m.Timezone, m.ScheduleLocalTime, m.Days, m.Enabled)
	s := v.schedule(c)
	c.Delivery = v.delivery(c.Delivery)
	if err := v.err(); err != nil {
		return Schedule{}, err
	}
	return s, nil
}

// document checks that raw holds exactly one JSON value.
func (v *validator) document(raw []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var doc json.RawMessage
	if err := dec.Decode(&doc); err != nil {
		v.addError(syntaxError(raw, err))
		return nil, false
	}
	// Text that is not UTF-8, which json.Unmarshal turns into U+FFFD
	// silently: found by the app's one pre-scan of JSON bodies
	// (strictjson, which says why it is needed). Its other finding, a
	// member given twice or in two cases, object below reports in its own
	// words, every one of them: the schema's names match exactly, so a
	// case variant is an unknown field here.
	for _, p := range strictjson.All(raw) {
		if p.Code == strictjson.CodeInvalidUTF8 {
			// Said for people too: the settings page shows it as it is.
			v.add(p.Path, CodeInvalidUTF8, "this text is not UTF-8 (an escape such as \\ud800 stands for half a character): type it again")
		}
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		end += int64(len(raw[end:]) - len(bytes.TrimLeft(raw[end:], " \t\r\n")))
		at := position(raw, end)
		v.addError(FieldError{Code: CodeJSONTrailing, At: at, Message: "unexpected data after the JSON document at " + at})
		return nil, false
	}
	return doc, true
}

// syntaxError says why raw is not one JSON document.
func syntaxError(raw []byte, err error) FieldError {
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return FieldError{Code: CodeDocumentEmpty, Message: "the document is empty"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return FieldError{Code: CodeJSONTruncated, Message: "invalid JSON: the document ends too early"}
	case errors.As(err, &syntax):
		// Offset counts the bytes read, the offending one included.
		at := position(raw, syntax.Offset-1)
		return FieldError{Code: CodeJSONSyntax, At: at, Message: fmt.Sprintf("invalid JSON at %s: %s", at, syntax.Error())}
	}
	return FieldError{Code: CodeJSONInvalid, Message: "invalid JSON: " + err.Error()}
}

// position locates the byte at index i as "line L, column C", both from 1.
func position(raw []byte, i int64) string {
	before := raw[:min(max(i, 0), int64(len(raw)))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// object returns the members of the JSON object raw at path, reporting
// members not in allowed and repeated members. raw is known to be valid JSON.
func (v *validator) object(path string, raw json.RawMessage, allowed ...string) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		v.add(path, CodeObjectExpected, "must be a JSON object")
		return nil, false
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		tok, _ := dec.Token() // raw is valid JSON, so this is the member's key
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			v.add(path, CodeJSONInvalid, "invalid JSON: %v", err)
			return nil, false
		}
		field := join(path, key)
		switch {
		case !slices.Contains(allowed, key):
			v.add(field, CodeUnknownField, "unknown field")
		case members[key] != nil:
			v.add(field, CodeRepeatedField, "is repeated")
		default:
			members[key] = val
		}
	}
	return members, true
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// value decodes a present member into dst; null is a type error, not absence.
func (v *validator) value(field string, raw json.RawMessage, dst any, want string) {
	if raw == nil {
		return
	}
	if string(raw) == "null" || json.Unmarshal(raw, dst) != nil {
		v.add(field, CodeWrongType, "%s", want)
	}
}

// days decodes the days member; nil when absent, non-nil (maybe empty) when present.
func (v *validator) days(raw json.RawMessage) []string {
	if raw == nil {
		return nil
	}
	var items []json.RawMessage
	v.value("briefing.days", raw, &items, `must be a list of days such as ["mon", "tue"]`)
	if len(items) > 7 { // one error for the list, not one per surplus entry
		v.add("briefing.days", CodeDaysTooMany, "list each day at most once: a week has 7 days, this lists %d", len(items))
		return []string{}
	}
	days := make([]string, len(items))
	for i, item := range items {
		v.value(dayField(i), item, &days[i], `must be a day such as "mon"`)
	}
	return days
}

func dayField(i int) string {
	return fmt.Sprintf("briefing.days[%d]", i)
}

// schedule validates the values of c, skipping fields that already failed
// to decode.
func (v *validator) schedule(c Config) Schedule {
	b := c.Briefing
	s := Schedule{Enabled: b.Enabled == nil || *b.Enabled}
	if !v.has("briefing.timezone") {
		z, err := LoadZone(b.Timezone)
		if err != nil {
			v.add("briefing.timezone", CodeZoneUnknown, "%v", err)
		}
		s.Zone = z
	}
	if !v.has("briefing.schedule_local_time") {
		s.At = v.localTime(b.ScheduleLocalTime)
	}
	if !v.has("briefing.days") {
		s.Days = v.daySet(b.Days)
	}
	return s
}

func (v *validator) localTime(s string) LocalTime {
	if s == "" {
		v.add("briefing.schedule_local_time", CodeTimeRequired, "schedule time is required")
		return LocalTime{}
	}
	t, err := ParseLocalTime(s)
	if err != nil {
		v.add("briefing.schedule_local_time", CodeTimeFormat, "%v", err)
	}
	return t
}

func (v *validator) daySet(names []string) DaySet {
	switch {
	case names == nil:
		return AllDays()
	case len(names) == 0:
		v.add("briefing.days", CodeDaysEmpty, "choose at least one day")
		return 0
	}
	var set DaySet
	for i, name := range names {
		if v.has(dayField(i)) {
			continue
		}
		d, err := ParseDayName(name)
		switch {
		case err != nil:
			v.add(dayField(i), CodeDayUnknown, "%v", err)
		case set.Has(d):
			v.add(dayField(i), CodeDayRepeated, "%q is listed twice", name)
		default:
			set |= DaysOf(d)
		}
	}
	return set
}
