package schedule_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		`{"briefing": {"timezone": "America/New_York", "schedule_local_time": "08:00", "days": ["mon","tue","wed","thu","fri"], "enabled": true}}`,
		`{"briefing": {"timezone": "US/Eastern", "schedule_local_time": "23:59", "days": ["sun","mon"], "enabled": false}}`,
		`{"briefing": {"timezone": "asia/calcutta", "schedule_local_time": "00:00"}}`,
		`{"briefing": {"timezone": "Pacific/Chatham", "schedule_local_time": "02:45", "days": ["sat"]}}`,
		`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "days": []}}`,
		`{"briefing": {"timezone": "Mars/Base", "schedule_local_time": "25:00", "days": ["mon", "mon", 3]}}`,
		`{"briefing": {"timezone": "../etc/passwd", "schedule_local_time": "7:5"}}`,
		`{"briefing": {"timezone": "Local", "schedule_local_time": "08:00:00", "enabled": "yes"}}`,
		`{"briefing": {"timezone": "UTC", "timezone": "UTC", "schedule_local_time": "08:00"}}`,
		`{"briefing": {"timezone": null, "schedule_local_time": null, "days": null, "enabled": null}}`,
		`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "extra": {}}`,
		`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}} trailing`,
		`{"Briefing": {}}`,
		`{"briefing": []}`,
		`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"to": ["a@b.example", "Ops <OPS@b.example>"], "technicians": true}, "webhook": {"url": "https://hooks.example/x"}}}`,
		`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"to": ["a@b.example", "A@B.example", "x", 1, "", "\"a b\"@q.example", "=?utf-8?q?J=C3=B6rg?= <j@x.example>"]}, "webhook": {"url": "http://u:p@[::1]:9/#f"}}}`,
		`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {"email": {"technicians": true, "to": []}, "webhook": {}}}`,
		`{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00"}, "delivery": {}}`,
		`{"delivery": {"email": null, "webhook": [], "sms": 1}}`,
		`{}`, `[]`, `null`, `"x"`, ``, `{`, `{"briefing": {"timezone": "\u0055TC", "schedule_local_time": "08:00"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, s, err := schedule.ParseConfig(raw)
		if err != nil {
			var verr *schedule.ValidationError
			require.ErrorAs(t, err, &verr)
			require.NotEmpty(t, verr.Errors)
			for _, fe := range verr.Errors {
				require.NotEmpty(t, fe.Message)
			}
			return
		}
		canonical := c.JSON()
		again, againSched, err := schedule.ParseConfig(canonical)
		require.NoError(t, err, "re-parsing %s", canonical)
		require.Equal(t, c, again)
		require.Equal(t, s, againSched)
		require.Equal(t, canonical, again.JSON())
	})
}
