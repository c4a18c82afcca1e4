package worker

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/text"
	"fieldbrief/internal/transport/transporttest"
)

// A subject line carries at most a short, sanitised part of field data
// (docs/delivery.md, "Subjects"): a customer or an org name with line
// breaks, control characters and 500 characters (an org's name, 190)
// gives one short line.
func TestSubjectsCarryAShortCleanPartOfFieldData(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	org := f.Org("subjects", deliveryConfig("Etc/UTC", "07:00", []string{"dispatch@subjects.test"}, true, ""))
	long := "Mrs\r\nBcc: victim@example.test\r\n\r\n\x1b[31mJones\u202e\t" + strings.Repeat("x", 500)
	_, err := f.DB.Exec(f.Ctx, `UPDATE orgs SET name = $2 WHERE id = $1`, org, long[:190]) // its longest is 200
	require.NoError(t, err)
	tech := f.techWithEmail(org, "Ana", "ana@subjects.test")
	job := f.Job(org, tech, long, utc("2026-03-10T09:00:00Z"), utc("2026-03-10T10:00:00Z"), "scheduled")
	_, err = f.DB.Exec(f.Ctx, `UPDATE jobs SET address = '' WHERE id = $1`, job) // the customer names the visit
	require.NoError(t, err)

	f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-10T07:00:00Z"))
	require.Equal(t, map[string]string{"dispatch@subjects.test": "sent/1", "ana@subjects.test": "sent/1"}, f.deliveryStates(org))
	msgs := sink.Messages()
	require.Equal(t, 2, len(msgs)) // not require.Len: it would print them
	for _, m := range msgs {
		parsed, err := m.Parse()
		require.NoError(t, err)
		subject := decodeHeader(t, parsed.Header.Get("Subject"))
		require.False(t, text.HasControl(subject), "%q", subject)
		require.NotContains(t, subject, "  ")
		require.Contains(t, subject, "Mrs Bcc: victim@example.test [31mJones x", "%q", subject)
		require.Contains(t, subject, "x…", "cut with an ellipsis")
		require.LessOrEqual(t, utf8.RuneCountInString(subject), 120, "%q", subject)
		require.Empty(t, parsed.Header.Get("Bcc"))
	}
}
