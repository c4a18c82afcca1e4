package schedule_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/schedule"
)

func TestParseConfigCanonicalizes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"full document",
			`{"briefing": {"timezone": "America/New_York", "schedule_local_time": "08:00", "days": ["mon","tue","wed","thu","fri"], "enabled": true}}`,
			`{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","days":["mon","tue","wed","thu","fri"],"enabled":true}}`},
		{"alias and unsorted days",
			`{"briefing": {"timezone": "US/Eastern", "schedule_local_time": "23:59", "days": ["sun","mon","fri"], "enabled": false}}`,
			`{"briefing":{"timezone":"America/New_York","schedule_local_time":"23:59","days":["mon","fri","sun"],"enabled":false}}`},
		{"absent days mean every day, absent enabled means true",
			`{"briefing": {"timezone": "utc", "schedule_local_time": "00:00"}}`,
			`{"briefing":{"timezone":"UTC","schedule_local_time":"00:00"}}`},
		{"whitespace around the document",
			"\n\t {\"briefing\":{\"timezone\":\"Asia/Calcutta\",\"schedule_local_time\":\"06:30\",\"days\":[\"sat\"]}} \n",
			`{"briefing":{"timezone":"Asia/Kolkata","schedule_local_time":"06:30","days":["sat"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, s, err := schedule.ParseConfig([]byte(tt.in))
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(c.JSON()))
			require.Equal(t, tt.want, string(c.JSON()))

			again, againSched, err := schedule.ParseConfig(c.JSON())
			require.NoError(t, err)
			require.Equal(t, c, again)
			require.Equal(t, s, againSched)
		})
	}
}

func TestParseConfigTypedSchedule(t *testing.T) {
	t.Parallel()
	c, s, err := schedule.ParseConfig([]byte(`{"briefing":{"timezone":"Asia/Kathmandu","schedule_local_time":"07:45","days":["sat","sun"],"enabled":false}}`))
	require.NoError(t, err)
	require.Equal(t, "Asia/Kathmandu", s.Zone.Name)
	require.Equal(t, schedule.LocalTime{Hour: 7, Minute: 45}, s.At)
	require.Equal(t, schedule.DaysOf(time.Saturday, time.Sunday), s.Days)
	require.False(t, s.Enabled)
	require.Equal(t, c, s.Config())
}

// problem is a FieldError's field and message, what the API shows.
type problem struct{ Field, Message string }

func TestParseConfigReportsEveryProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     []problem
	}{
		{"empty", ``, []problem{{"", "the document is empty"}}},
		{"malformed", "{\"briefing\": {\n  \"timezone\": }}", []problem{
			{"", "invalid JSON at line 2, column 15: invalid character '}' looking for beginning of value"}}},
		{"truncated", `{"briefing": {`, []problem{{"", "invalid JSON: the document ends too early"}}},
		{"trailing data", `{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}} {}`, []problem{
			{"", "unexpected data after the JSON document at line 1, column 67"}}},
		{"trailing garbage", "{}\n x", []problem{{"", "unexpected data after the JSON document at line 2, column 2"}}},
		{"not an object", `["briefing"]`, []problem{{"", "must be a JSON object"}}},
		{"null", `null`, []problem{{"", "must be a JSON object"}}},
		{"missing briefing", `{}`, []problem{{"briefing", "is required"}}},
		{"briefing not an object", `{"briefing": "08:00"}`, []problem{{"briefing", "must be a JSON object"}}},
		{"unknown top-level field", `{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "extra": 1}`,
			[]problem{{"extra", "unknown field"}}},
		{"keys are case-sensitive", `{"Briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}}`,
			[]problem{{"Briefing", "unknown field"}, {"briefing", "is required"}}},
		{"missing fields", `{"briefing": {}}`, []problem{
			{"briefing.timezone", "time zone is required"},
			{"briefing.schedule_local_time", "schedule time is required"}}},
		{"everything wrong at once", `{"briefing": {"timezone": "Mars/Base", "schedule_local_time": "25:00",
			"days": ["mon", "funday", "mon", 3], "enabled": "yes", "Timezone": "UTC"}}`, []problem{
			{"briefing.Timezone", "unknown field"},
			{"briefing.days[3]", `must be a day such as "mon"`},
			{"briefing.enabled", "must be true or false"},
			{"briefing.timezone", `unknown time zone "Mars/Base"`},
			{"briefing.schedule_local_time", `invalid time "25:00": must be between 00:00 and 23:59`},
			{"briefing.days[1]", `unknown day "funday": use mon, tue, wed, thu, fri, sat or sun`},
			{"briefing.days[2]", `"mon" is listed twice`}}},
		{"half a surrogate pair", `{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"to": ["ops\ud800@acme.test"]}}}`,
			[]problem{{"delivery.email.to[0]", `this text is not UTF-8 (an escape such as \ud800 stands for half a character): type it again`}}},
		{"repeated key", `{"briefing": {"timezone": "UTC", "timezone": "Europe/Berlin", "schedule_local_time": "08:00"}}`,
			[]problem{{"briefing.timezone", "is repeated"}}},
		{"wrong types", `{"briefing": {"timezone": 5, "schedule_local_time": 800, "days": "mon", "enabled": null}}`,
			[]problem{
				{"briefing.timezone", "must be a string"},
				{"briefing.schedule_local_time", `must be a string such as "08:00"`},
				{"briefing.days", `must be a list of days such as ["mon", "tue"]`},
				{"briefing.enabled", "must be true or false"}}},
		{"null days", `{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "days": null}}`,
			[]problem{{"briefing.days", `must be a list of days such as ["mon", "tue"]`}}},
		{"no days", `{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "days": []}}`,
			[]problem{{"briefing.days", "choose at least one day"}}},
		{"day names are lowercase", `{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "days": ["Mon"]}}`,
			[]problem{{"briefing.days[0]", `unknown day "Mon": use mon, tue, wed, thu, fri, sat or sun`}}},
		{"Local", `{"briefing": {"timezone": "Local", "schedule_local_time": "08:00"}}`,
			[]problem{{"briefing.timezone", `time zone "Local" depends on the server; choose a named zone`}}},
		{"path", `{"briefing": {"timezone": "../../etc/passwd", "schedule_local_time": "08:00"}}`,
			[]problem{{"briefing.timezone", `invalid time zone name "../../etc/passwd"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := schedule.ParseConfig([]byte(tt.in))
			var verr *schedule.ValidationError
			require.ErrorAs(t, err, &verr)
			got := make([]problem, len(verr.Errors))
			for i, fe := range verr.Errors {
				got[i] = problem{fe.Field, fe.Message}
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// Each problem carries a machine code (and, for syntax, where), so the
// settings page says it in its own words without reading the message.
func TestParseConfigCodes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]schedule.FieldError{
		``:                     {Code: schedule.CodeDocumentEmpty, Message: "the document is empty"},
		"{\n  \"briefing\": }": {Code: schedule.CodeJSONSyntax, At: "line 2, column 15", Message: "invalid JSON at line 2, column 15: invalid character '}' looking for beginning of value"},
		`{} x`:                 {Code: schedule.CodeJSONTrailing, At: "line 1, column 4", Message: "unexpected data after the JSON document at line 1, column 4"},
		`{"briefing": {"timezone": "Mars/Base", "schedule_local_time": "08:00"}}`: {Field: "briefing.timezone", Code: schedule.CodeZoneUnknown, Message: `unknown time zone "Mars/Base"`},
		`{"briefing": {"timezone": "UTC", "schedule_local_time": "8:00"}}`:        {Field: "briefing.schedule_local_time", Code: schedule.CodeTimeFormat, Message: `invalid time "8:00": want HH:MM, e.g. 08:00`},
		`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"to": ["a@example.com", "b@example.com", "c@example.com", "d@example.com", "e@example.com", "f@example.com", "g@example.com", "h@example.com", "i@example.com", "j@example.com", "k@example.com", "l@example.com", "m@example.com", "n@example.com", "o@example.com", "p@example.com", "q@example.com", "r@example.com", "s@example.com", "t@example.com", "u@example.com"]}}}`: {
			Field: "delivery.email.to", Code: schedule.CodeAddressesTooMany, Count: 21, Message: "at most 20 addresses; found 21"},
	} {
		_, _, err := schedule.ParseConfig([]byte(in))
		var verr *schedule.ValidationError
		require.ErrorAs(t, err, &verr, in)
		require.Equal(t, []schedule.FieldError{want}, verr.Errors, in)
		ae, ok := apperr.As(err)
		require.True(t, ok, "a ValidationError is an apperr Invalid one")
		require.Equal(t, apperr.Invalid, ae.Code)
		require.Equal(t, []apperr.Field{{Name: want.Field, Code: want.Code, Message: want.Message}}, ae.Fields)
	}
}

func TestParseConfigRejectsBadTimes(t *testing.T) {
	t.Parallel()
	for _, at := range []string{"25:00", "24:00", "7:5", "08:00:00", "8:00", "08:60", ""} {
		_, _, err := schedule.ParseConfig([]byte(`{"briefing":{"timezone":"UTC","schedule_local_time":"` + at + `"}}`))
		var verr *schedule.ValidationError
		require.ErrorAs(t, err, &verr, at)
		require.NotEmpty(t, verr.For("briefing.schedule_local_time"), at)
	}
}

func TestValidationErrorMessages(t *testing.T) {
	t.Parallel()
	_, _, err := schedule.ParseConfig([]byte(`{"briefing": {"timezone": "Mars/Base", "schedule_local_time": "08:00", "days": []}}`))
	var verr *schedule.ValidationError
	require.ErrorAs(t, err, &verr)
	require.Equal(t, `unknown time zone "Mars/Base"`, verr.For("briefing.timezone"))
	require.Equal(t, "choose at least one day", verr.For("briefing.days"))
	require.Empty(t, verr.For("briefing.schedule_local_time"))
	require.EqualError(t, err,
		`invalid fieldforce config: briefing.timezone: unknown time zone "Mars/Base"; briefing.days: choose at least one day`)
}

func TestParseConfigDefaults(t *testing.T) {
	t.Parallel()
	_, s, err := schedule.ParseConfig([]byte(`{"briefing":{"timezone":"US/Pacific","schedule_local_time":"09:15"}}`))
	require.NoError(t, err)
	require.Equal(t, "America/Los_Angeles", s.Zone.Name)
	require.Equal(t, schedule.AllDays(), s.Days)
	require.True(t, s.Enabled)
}

func TestDefaultSchedule(t *testing.T) {
	t.Parallel()
	s := schedule.DefaultSchedule()
	c := s.Config()
	require.Equal(t,
		`{"briefing":{"timezone":"UTC","schedule_local_time":"08:00","days":["mon","tue","wed","thu","fri"],"enabled":true}}`,
		string(c.JSON()))
	parsed, parsedSched, err := schedule.ParseConfig(c.JSON())
	require.NoError(t, err)
	require.Equal(t, c, parsed, "the default is already canonical")
	require.Equal(t, s, parsedSched, "the default's zone is the loaded UTC")
}

func TestJSONOfAnInvalidConfigIsVerbatim(t *testing.T) {
	t.Parallel()
	c := schedule.Config{Briefing: schedule.BriefingConfig{Timezone: "Mars/Base", ScheduleLocalTime: "08:00", Days: []string{"sun", "mon"}}}
	require.Equal(t, `{"briefing":{"timezone":"Mars/Base","schedule_local_time":"08:00","days":["sun","mon"]}}`, string(c.JSON()))
}

// docs/security.md, "Email addresses we send to": a recipient at a domain we never send to is refused
// with text's code for it, so pages can word each.
func TestRecipientAtADomainWeNeverSendTo(t *testing.T) {
	t.Parallel()
	for addr, code := range map[string]string{
		"root@[127.0.0.1]":        schedule.CodeAddressIPLiteral,
		"postmaster@localhost":    schedule.CodeAddressDotless,
		"Ops <ops@printer.local>": schedule.CodeAddressInternal,
		"x@y@z":                   schedule.CodeAddressInvalid,
	} {
		doc, _ := json.Marshal(map[string]any{"briefing": map[string]any{"timezone": "UTC", "schedule_local_time": "08:00"},
			"delivery": map[string]any{"email": map[string]any{"to": []string{"ops@acme.example", addr}}}})
		_, _, err := schedule.ParseConfig(doc)
		var ve *schedule.ValidationError
		require.ErrorAs(t, err, &ve, addr)
		require.Len(t, ve.Errors, 1, addr)
		require.Equal(t, "delivery.email.to[1]", ve.Errors[0].Field, addr)
		require.Equal(t, code, ve.Errors[0].Code, addr)
	}
}
