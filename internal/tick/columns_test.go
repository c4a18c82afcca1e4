package tick

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

// configShapes are stored documents of every kind: the fuzz corpus's
// seeds that PostgreSQL stores as jsonb, unknown members at every level,
// wrong types, bad times and zones, aliases, and delivery errors.
var configShapes = []string{
	`{"briefing": {"timezone": "America/New_York", "schedule_local_time": "08:00", "days": ["mon","tue","wed","thu","fri"], "enabled": true}}`,
	`{"briefing": {"timezone": "US/Eastern", "schedule_local_time": "23:59", "days": ["sun","mon"], "enabled": false}}`,
	`{"briefing": {"timezone": "asia/calcutta", "schedule_local_time": "00:00"}}`,
	`{"briefing": {"timezone": "Pacific/Chatham", "schedule_local_time": "02:45", "days": ["sat"]}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "days": []}}`,
	`{"briefing": {"timezone": "Mars/Base", "schedule_local_time": "25:00", "days": ["mon", "mon", 3]}}`,
	`{"briefing": {"timezone": "../etc/passwd", "schedule_local_time": "7:5"}}`,
	`{"briefing": {"timezone": "/usr/share/zoneinfo/UTC", "schedule_local_time": "08:00"}}`,
	`{"briefing": {"timezone": "Local", "schedule_local_time": "08:00:00", "enabled": "yes"}}`,
	`{"briefing": {"timezone": "", "schedule_local_time": ""}}`,
	`{"briefing": {"timezone": "UTC", "timezone": "UTC", "schedule_local_time": "08:00"}}`,
	`{"briefing": {"timezone": null, "schedule_local_time": null, "days": null, "enabled": null}}`,
	`{"briefing": {"timezone": 5, "schedule_local_time": 800, "days": "mon", "enabled": 1}}`,
	`{"briefing": {"timezone": ["UTC"], "schedule_local_time": {"h": 8}, "days": [["mon"]], "enabled": [true]}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "8:00"}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "24:00"}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:60"}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": " 08:00"}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "days": ["Mon"]}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "days": ["mon","tue","wed","thu","fri","sat","sun","mon"]}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "days": ["sun","sat","fri","thu","wed","tue","mon"]}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "extra": {}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "tz": "x"}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"to": ["a@b.example"], "cc": []}}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"sms": {}}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"webhook": {"url": "https://x.example", "secret": "s"}}}`,
	`{"Briefing": {}}`,
	`{"briefing": []}`,
	`{"briefing": "08:00"}`,
	`{"briefing": null}`,
	`{"briefing": {}}`,
	`{"briefing": {"schedule_local_time": "08:00"}}`,
	`{"briefing": {"timezone": "UTC"}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"to": ["a@b.example", "Ops <OPS@b.example>"], "technicians": true}, "webhook": {"url": "https://hooks.example/x"}}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"to": ["a@b.example", "A@B.example", "x", 1, "", "\"a b\"@q.example", "=?utf-8?q?J=C3=B6rg?= <j@x.example>"]}, "webhook": {"url": "http://u:p@[::1]:9/#f"}}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"technicians": true, "to": []}, "webhook": {}}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": null}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"technicians": "yes"}}}`,
	`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"webhook": {"url": "ftp://x.example"}}}`,
	`{"delivery": {"email": null, "webhook": [], "sms": 1}}`,
	`{}`, `[]`, `null`, `"x"`, `1`, `true`, `[{"briefing": {}}]`,
	`{"briefing": {"timezone": "\u0055TC", "schedule_local_time": "08:00"}}`,
	`{"briefing": {"timezone": "Europe/Zürich", "schedule_local_time": "08:00"}}`,
	`{"briefing": {"timezone": "europe/BERLIN", "schedule_local_time": "06:45", "days": ["mon","tue","wed","thu","fri","sat"], "enabled": true}}`,
	`{"briefing": {"timezone": "Asia/Kathmandu", "schedule_local_time": "09:45", "enabled": false}}`,
	`{"briefing": {"timezone": "Etc/GMT+5", "schedule_local_time": "12:00"}}`,
}

// The candidate SQL's column path (a shape check, then the briefing's
// members as columns, validated by schedule.ParseMembers) gives the same
// decision as schedule.ParseConfig on the whole stored document, for every
// shape: valid or not, and the same schedule.
func TestConfigColumnsAgreeWithParseConfig(t *testing.T) {
	f := setup(t)
	ids := map[int64]string{}
	for i, doc := range configShapes {
		ids[f.Org(fmt.Sprintf("org-%d", i), doc)] = doc
	}
	cands, err := candidates(f.Ctx, f.DB, utc("2026-03-10T12:00:00Z"))
	require.NoError(t, err)
	require.Len(t, cands, len(configShapes))
	columns := 0
	for _, c := range cands {
		var stored []byte
		require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT config_json::text FROM org_module_configs WHERE org_id = $1`, c.OrgID).Scan(&stored))
		_, want, wantErr := schedule.ParseConfig(stored)
		got := parseConfig(c.Config)
		require.Equal(t, wantErr == nil, got.err == nil, "%s: ParseConfig %v, columns %v", ids[c.OrgID], wantErr, got.err)
		require.Equal(t, want, got.schedule, ids[c.OrgID])
		if wantErr != nil {
			require.Equal(t, wantErr.Error(), got.err.Error(), ids[c.OrgID])
		}
		if c.Config.Doc == nil {
			columns++
		}
	}
	require.Greater(t, columns, len(configShapes)/2, "most documents take the column path")
}
