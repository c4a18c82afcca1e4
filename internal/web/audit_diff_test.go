package web

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/views"
)

func TestAuditChanges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		old, new string
		want     []views.AuditChange
	}{
		{"changed fields only", `{"briefing": {"days": ["mon"], "timezone": "Europe/Berlin", "schedule_local_time": "07:00"}}`,
			`{"briefing": {"days": ["mon"], "timezone": "Asia/Kolkata", "schedule_local_time": "09:45"}}`,
			[]views.AuditChange{
				{Field: "briefing.schedule_local_time", Old: `"07:00"`, New: `"09:45"`},
				{Field: "briefing.timezone", Old: `"Europe/Berlin"`, New: `"Asia/Kolkata"`},
			}},
		{"arrays compare whole", `{"days": ["mon", "tue"]}`, `{"days": ["mon"]}`,
			[]views.AuditChange{{Field: "days", Old: `["mon", "tue"]`, New: `["mon"]`}}},
		{"added and removed fields", `{"a": 1, "b": true}`, `{"b": true, "c": null}`,
			[]views.AuditChange{{Field: "a", Old: "1", New: "—"}, {Field: "c", Old: "—", New: "null"}}},
		{"created", ``, `{"state": "off"}`, []views.AuditChange{{Field: "state", Old: "—", New: `"off"`}}},
		{"not an object", `true`, `false`, []views.AuditChange{{Old: "true", New: "false"}}},
		{"no HTML escaping, numbers as stored", `{"n": 1.50}`, `{"n": "<b>"}`,
			[]views.AuditChange{{Field: "n", Old: "1.50", New: `"<b>"`}}},
		{"unchanged", `{"a": {"b": 1}}`, `{"a": {"b": 1}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, auditChanges(json.RawMessage(tc.old), json.RawMessage(tc.new)))
		})
	}
}
