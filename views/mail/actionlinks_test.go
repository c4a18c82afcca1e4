package mail_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/i18n"
	"fieldbrief/views/mail"
)

// A job needing action links to itself and to its day on the board, in
// the HTML and the text part; a route's job does not.
func TestActionItemLinks(t *testing.T) {
	t.Parallel()
	e := sample()
	e.L = i18n.Resolve("de", "de-DE", "")
	job, board := "https://app.fieldbrief.test/orgs/northwind/jobs/7", "https://app.fieldbrief.test/orgs/northwind/board?date=2026-03-08"
	e.ActionItems.Overdue[0].ID, e.ActionItems.Overdue[0].JobURL, e.ActionItems.Overdue[0].BoardURL = 7, job, board
	html := render(t, e)
	require.Contains(t, html, `href="`+job+`">Auftrag öffnen</a>`)
	require.Contains(t, html, `href="https://app.fieldbrief.test/orgs/northwind/board?date=2026-03-08">Den Tag im Tagesplan ansehen</a>`)
	require.Equal(t, 1, strings.Count(html, `data-links="action"`), "the one job with links")
	text := mail.Text(e)
	require.Contains(t, text, "  Auftrag öffnen: "+job+"\n  Den Tag im Tagesplan ansehen: "+board+"\n")
}
