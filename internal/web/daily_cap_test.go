package web

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A delivery skipped for the org's daily email cap says so, in the reader's
// language, on the delivery log and beside it on its briefing's page
// (docs/delivery.md, "Daily cap"), not in the English the worker stored.
func TestDailyCapSkipIsShownInTheReadersWords(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC))
	id := readyBriefing(t, f, f.orgA.ID)
	ctx := context.Background()
	_, err := f.db.Exec(ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, state, last_code, last_detail, due_at)
		VALUES ($1, $2, 1, 'email', 'technician', 'ana@acme.test', 'msg_cap1', 'skipped', 'daily_cap',
		        'the org''s daily cap of 50 emails on 2026-03-03 was reached — not sent', '2026-03-03 13:00Z')`, f.orgA.ID, id)
	require.NoError(t, err)

	for _, tc := range []struct{ locale, why string }{
		{"en-US", "Not sent: the organization reached its daily email limit for that day."},
		{"de-DE", "Nicht gesendet: Die Organisation hat ihr tägliches E-Mail-Limit für diesen Tag erreicht."},
		{"es-ES", "No enviado: la organización alcanzó su límite diario de correos de ese día."},
		{"fr-FR", "Non envoyé : l’organisation a atteint sa limite quotidienne d’e-mails pour ce jour-là."},
	} {
		f.setLocale(f.orgA.ID, tc.locale)
		log := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body).byID("delivery-log")
		require.Contains(t, log.find(attrIs("data-delivery-state", "skipped")).text(), tc.why, tc.locale)
		doc := parseDoc(t, f.as(&f.memberA).get(briefingsPath+"/2026-03-03").Body)
		require.Equal(t, tc.why, doc.find(attrIs("data-skipped", "daily_cap")).text(), tc.locale)
	}
}
