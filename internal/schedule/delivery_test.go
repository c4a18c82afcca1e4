package schedule_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

const briefingDoc = `"briefing":{"timezone":"UTC","schedule_local_time":"08:00"}`

// withDelivery is a valid briefing with the given delivery member.
func withDelivery(delivery string) string {
	return `{` + briefingDoc + `,"delivery":` + delivery + `}`
}

func TestParseConfigDeliveryCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"absent stays absent",
			`{` + briefingDoc + `}`,
			`{` + briefingDoc + `}`},
		{"full",
			withDelivery(`{"email": {"to": ["dispatch@acme.example", "ops@acme.example"], "technicians": true}, "webhook": {"url": "https://hooks.acme.example/fieldbrief?x=1"}}`),
			withDelivery(`{"email":{"to":["dispatch@acme.example","ops@acme.example"],"technicians":true},"webhook":{"url":"https://hooks.acme.example/fieldbrief?x=1"}}`)},
		{"display names are dropped, case is kept",
			withDelivery(`{"email": {"to": ["Dispatch Desk <Dispatch@Acme.example>"]}}`),
			withDelivery(`{"email":{"to":["Dispatch@Acme.example"]}}`)},
		{"technicians alone, empty to left out",
			withDelivery(`{"email": {"to": [], "technicians": true}}`),
			withDelivery(`{"email":{"technicians":true}}`)},
		{"technicians false is the default",
			withDelivery(`{"email": {"to": ["a@b.example"], "technicians": false}}`),
			withDelivery(`{"email":{"to":["a@b.example"]}}`)},
		{"webhook only, http is syntax the policy decides on",
			withDelivery(`{"webhook": {"url": "http://127.0.0.1:9/x"}}`),
			withDelivery(`{"webhook":{"url":"http://127.0.0.1:9/x"}}`)},
		{"empty delivery sends nothing, like an absent one",
			withDelivery(`{}`),
			`{` + briefingDoc + `}`},
		{"send_within in its canonical spelling",
			withDelivery(`{"email": {"to": ["a@b.example"]}, "send_within": "90m"}`),
			withDelivery(`{"email":{"to":["a@b.example"]},"send_within":"1h30m"}`)},
		{"send_within whole hours, updates off",
			withDelivery(`{"webhook": {"url": "https://h.example/x"}, "send_within": "2h0m0s", "updates": false}`),
			withDelivery(`{"webhook":{"url":"https://h.example/x"},"send_within":"2h","updates":false}`)},
		{"send_within kept without a recipient",
			withDelivery(`{"send_within": "45m"}`),
			withDelivery(`{"send_within":"45m"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, err := schedule.ParseConfig([]byte(tt.in))
			require.NoError(t, err)
			require.Equal(t, tt.want, string(c.JSON()))
			again, _, err := schedule.ParseConfig(c.JSON())
			require.NoError(t, err)
			require.Equal(t, c, again)
		})
	}
}

func TestParseConfigDeliveryErrors(t *testing.T) {
	t.Parallel()
	twentyOne := make([]string, 21)
	for i := range twentyOne {
		twentyOne[i] = fmt.Sprintf("%q", fmt.Sprintf("r%d@acme.example", i))
	}
	long := strings.Repeat("a", 250) + "@acme.example"
	tests := []struct {
		name, in string
		want     []problem
	}{
		{"not an object", withDelivery(`[]`), []problem{{"delivery", "must be a JSON object"}}},
		{"send_within not a duration", withDelivery(`{"send_within": "soon"}`),
			[]problem{{"delivery.send_within", `"soon" is not a duration such as "3h" or "90m"`}}},
		{"send_within too short", withDelivery(`{"send_within": "1m"}`),
			[]problem{{"delivery.send_within", `must be whole minutes between 5m and 24h, such as "3h"`}}},
		{"send_within too long", withDelivery(`{"send_within": "25h"}`),
			[]problem{{"delivery.send_within", `must be whole minutes between 5m and 24h, such as "3h"`}}},
		{"send_within seconds", withDelivery(`{"send_within": "90s"}`),
			[]problem{{"delivery.send_within", `must be whole minutes between 5m and 24h, such as "3h"`}}},
		{"send_within a number", withDelivery(`{"send_within": 3}`),
			[]problem{{"delivery.send_within", `must be a duration such as "3h" or "90m"`}}},
		{"updates not a bool", withDelivery(`{"updates": "no"}`),
			[]problem{{"delivery.updates", "must be true or false"}}},
		{"unknown field", withDelivery(`{"sms": {}}`), []problem{{"delivery.sms", "unknown field"}}},
		{"unknown email field", withDelivery(`{"email": {"to": ["a@b.example"], "cc": []}}`),
			[]problem{{"delivery.email.cc", "unknown field"}}},
		{"unknown webhook field", withDelivery(`{"webhook": {"url": "https://h.example", "secret": "x"}}`),
			[]problem{{"delivery.webhook.secret", "unknown field"}}},
		{"email needs someone", withDelivery(`{"email": {}}`),
			[]problem{{"delivery.email.to", "add at least one address, or send each technician their own day"}}},
		{"empty to without technicians", withDelivery(`{"email": {"to": [], "technicians": false}}`),
			[]problem{{"delivery.email.to", "add at least one address, or send each technician their own day"}}},
		{"to is not a list", withDelivery(`{"email": {"to": "a@b.example"}}`),
			[]problem{{"delivery.email.to", `must be a list of addresses such as ["dispatch@example.com"]`}}},
		{"technicians not a bool", withDelivery(`{"email": {"to": ["a@b.example"], "technicians": "yes"}}`),
			[]problem{{"delivery.email.technicians", "must be true or false"}}},
		{"too many", withDelivery(`{"email": {"to": [` + strings.Join(twentyOne, ",") + `]}}`),
			[]problem{{"delivery.email.to", "at most 20 addresses; found 21"}}},
		{"each address", withDelivery(`{"email": {"to": ["ok@acme.example", "not-an-address", 7, "OK@acme.example", "", "` + long + `", "\"a b\"@acme.example"]}}`),
			[]problem{
				{"delivery.email.to[2]", `must be an address such as "dispatch@example.com"`},
				{"delivery.email.to[1]", `"not-an-address" is not an email address such as dispatch@example.com`},
				{"delivery.email.to[3]", `"OK@acme.example" is already listed (address 1)`},
				{"delivery.email.to[4]", "address is empty"},
				{"delivery.email.to[5]", "address is too long (at most 254 characters)"},
				{"delivery.email.to[6]", `"\"a b\"@acme.example": quoted names before the @ are not supported`}}},
		{"webhook without url", withDelivery(`{"webhook": {}}`),
			[]problem{{"delivery.webhook.url", "is required"}}},
		{"webhook url not a string", withDelivery(`{"webhook": {"url": 5}}`),
			[]problem{{"delivery.webhook.url", `must be a string such as "https://hooks.example.com/fieldbrief"`}}},
		{"errors in briefing and delivery together", `{"briefing": {"timezone": "UTC"}, "delivery": {"webhook": {"url": "ftp://x.example"}}}`,
			[]problem{
				{"briefing.schedule_local_time", "schedule time is required"},
				{"delivery.webhook.url", "must start with https://"}}},
		{"missing briefing still checks delivery", `{"delivery": {"email": {"to": ["nope"]}}}`,
			[]problem{
				{"briefing", "is required"},
				{"delivery.email.to[0]", `"nope" is not an email address such as dispatch@example.com`}}},
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

func TestParseConfigWebhookURL(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{
		"https://hooks.acme.example/fieldbrief":          "",
		"https://hooks.acme.example:8443/a?b=c":          "",
		"http://localhost:8080/hook":                     "", // syntax only: the policy refuses it unless allowed
		"https://[2001:db8::1]/hook":                     "",
		"":                                               "is required",
		" https://hooks.acme.example":                    "must not start or end with spaces",
		"hooks.acme.example/fieldbrief":                  "must start with https://",
		"ftp://hooks.acme.example":                       "must start with https://",
		"https://user:pw@hooks.acme.example/":            "must not contain a user name or password; receivers check the signature instead",
		"https://@hooks.acme.example/":                   "must not contain a user name or password; receivers check the signature instead",
		"https:///path":                                  "must name a host, as in https://hooks.example.com/fieldbrief",
		"https:hooks.acme.example":                       "must name a host, as in https://hooks.example.com/fieldbrief",
		"https://:443/":                                  "must name a host, as in https://hooks.example.com/fieldbrief",
		"https://hooks.acme.example/#frag":               "must not contain a #fragment (it is never sent)",
		"https://hooks acme.example/":                    "is not a valid URL; use one such as https://hooks.example.com/fieldbrief",
		"https://hooks.acme.example:port/":               "is not a valid URL; use one such as https://hooks.example.com/fieldbrief",
		"https://h.example/" + strings.Repeat("a", 2048): "is too long (at most 2048 characters)",
	} {
		_, _, err := schedule.ParseConfig([]byte(withDelivery(fmt.Sprintf(`{"webhook": {"url": %q}}`, url))))
		if want == "" {
			require.NoError(t, err, url)
			continue
		}
		var verr *schedule.ValidationError
		require.ErrorAs(t, err, &verr, url)
		require.Equal(t, want, verr.For("delivery.webhook.url"), url)
	}
}

func TestDeliveryWithinAndUpdates(t *testing.T) {
	t.Parallel()
	var none *schedule.DeliveryConfig
	require.Equal(t, schedule.DefaultSendWithin, none.Within())
	require.False(t, none.UpdatesOn(), "no delivery sends nothing, updates included")
	c, _, err := schedule.ParseConfig([]byte(withDelivery(`{"email": {"to": ["a@b.example"]}}`)))
	require.NoError(t, err)
	require.Equal(t, 3*time.Hour, c.Delivery.Within())
	require.True(t, c.Delivery.UpdatesOn())
	c, _, err = schedule.ParseConfig([]byte(withDelivery(`{"email": {"to": ["a@b.example"]}, "send_within": "20m", "updates": false}`)))
	require.NoError(t, err)
	require.Equal(t, 20*time.Minute, c.Delivery.Within())
	require.False(t, c.Delivery.UpdatesOn())
}
