package unsubscribe_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/unsubscribe"
)

const baseURL = "https://app.fieldbrief.test"

// unsubscribeToken signs a link for email in org and returns its token.
func (b bundle) unsubscribeToken(t *testing.T, orgID int64, email string) string {
	t.Helper()
	link, err := b.Store.Unsubscribe.URL(b.Ctx, baseURL+"/", orgID, email)
	require.NoError(t, err)
	token, ok := strings.CutPrefix(link, baseURL+"/unsubscribe?t=")
	require.True(t, ok, link)
	u, err := url.Parse(link)
	require.NoError(t, err)
	require.Equal(t, token, u.Query().Get("t"), "the token needs no escaping")
	return token
}

// saveDelivery stores a config with the given delivery member.
func (b bundle) saveDelivery(t *testing.T, orgID int64, delivery string) {
	t.Helper()
	_, err := b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, orgID, []byte(`{"briefing":{"timezone":"UTC","schedule_local_time":"08:00"},"delivery":`+delivery+`}`), tenants.AnyVersion)

	require.NoError(t, err)
}

func (b bundle) delivery(t *testing.T, orgID int64) *schedule.DeliveryConfig {
	t.Helper()
	c, err := b.Store.Tenants.Fieldforce(b.Ctx, orgID)
	require.NoError(t, err)
	require.NoError(t, c.Err)
	return c.Config.Delivery
}

func (b bundle) suppressed(t *testing.T, orgID int64) map[string]bool {
	t.Helper()
	s, err := testutil.Suppressed(b.Ctx, b.Store.DB, orgID)
	require.NoError(t, err)
	return s
}

func TestUnsubscribeTokenRoundTrip(t *testing.T) {
	b := setup(t)
	token := b.unsubscribeToken(t, b.Acme.ID, "Ops@Acme.example")
	require.Less(t, len(token), 100, "compact: %s", token)

	got, err := b.Store.Unsubscribe.Target(b.Ctx, token)
	require.NoError(t, err)
	require.Equal(t, unsubscribe.Result{OrgName: "Acme Plumbing", Email: "Ops@Acme.example", OrgLocale: "en-US"}, got)

	// One key for every link, created once even when first uses race.
	tokens := make([]string, 8)
	var wg sync.WaitGroup
	for i := range tokens {
		wg.Go(func() {
			link, err := b.Store.Unsubscribe.URL(b.Ctx, baseURL, b.Other.ID, "a@globex.example")
			require.NoError(t, err)
			tokens[i] = link
		})
	}
	wg.Wait()
	for _, tok := range tokens {
		require.Equal(t, tokens[0], tok)
	}

	for _, bad := range []string{"", "Ops <ops@acme.example>", "not an address"} {
		_, err := b.Store.Unsubscribe.URL(b.Ctx, baseURL, b.Acme.ID, bad)
		require.Error(t, err, bad)
	}
}

func TestUnsubscribeRefusesBadTokens(t *testing.T) {
	b := setup(t)
	b.saveDelivery(t, b.Acme.ID, `{"email":{"to":["ops@acme.example"]}}`)
	token := b.unsubscribeToken(t, b.Acme.ID, "ops@acme.example")
	raw, err := base64.RawURLEncoding.DecodeString(token)
	require.NoError(t, err)

	// The same address and MAC, but another org's id in front.
	otherOrg := binary.AppendUvarint(nil, uint64(b.Other.ID))
	_, n := binary.Uvarint(raw)
	forged := base64.RawURLEncoding.EncodeToString(append(otherOrg, raw[n:]...))
	// One bit of the MAC flipped.
	tampered := append([]byte{}, raw...)
	tampered[len(tampered)-1] ^= 1
	// Another address under acme's MAC.
	otherAddr := append(binary.AppendUvarint(nil, uint64(b.Acme.ID)), "boss@acme.example"...)
	otherAddr = append(otherAddr, raw[len(raw)-16:]...)

	auditBefore := b.AuditCount(t)
	for name, bad := range map[string]string{
		"other org":     forged,
		"tampered MAC":  base64.RawURLEncoding.EncodeToString(tampered),
		"other address": base64.RawURLEncoding.EncodeToString(otherAddr),
		"truncated":     token[:len(token)-4],
		"empty":         "",
		"not base64":    token + "!",
		"padded":        token + "==",
		"NUL":           token[:10] + "\x00" + token[10:],
		"invalid UTF-8": token[:10] + "\xff" + token[10:],
		"too long":      strings.Repeat("A", unsubscribe.MaxTokenLen+1),
	} {
		_, err := b.Store.Unsubscribe.Unsubscribe(b.Ctx, bad)
		require.Equal(t, apperr.Invalid, apperr.Code(err), name)
		require.Contains(t, i18n.English.Message(err), "This unsubscribe link is not valid", name)
		_, err = b.Store.Unsubscribe.Target(b.Ctx, bad)
		require.Equal(t, apperr.Invalid, apperr.Code(err), name)
	}
	require.Equal(t, []string{"ops@acme.example"}, b.delivery(t, b.Acme.ID).Email.To, "nothing changed")
	require.Empty(t, b.suppressed(t, b.Acme.ID))
	require.Empty(t, b.suppressed(t, b.Other.ID))
	require.Equal(t, auditBefore, b.AuditCount(t))
}

func TestUnsubscribeRemovesTheRecipient(t *testing.T) {
	b := setup(t)
	b.saveDelivery(t, b.Acme.ID, `{"email":{"to":["ops@acme.example","boss@acme.example"]},"webhook":{"url":"https://hooks.acme.example/x"}}`)
	b.saveDelivery(t, b.Other.ID, `{"email":{"to":["ops@acme.example"]}}`)
	auditBefore := b.AuditCount(t)

	// The link's address differs in case from the list's: still the same mailbox.
	token := b.unsubscribeToken(t, b.Acme.ID, "OPS@acme.example")
	res, err := b.Store.Unsubscribe.Unsubscribe(b.Ctx, token)
	require.NoError(t, err)
	require.Equal(t, unsubscribe.Result{OrgName: "Acme Plumbing", Email: "OPS@acme.example", OrgLocale: "en-US"}, res)
	require.Equal(t, &schedule.DeliveryConfig{
		Email:   &schedule.EmailDelivery{To: []string{"boss@acme.example"}},
		Webhook: &schedule.WebhookDelivery{URL: "https://hooks.acme.example/x"},
	}, b.delivery(t, b.Acme.ID))
	require.Equal(t, map[string]bool{"ops@acme.example": true}, b.suppressed(t, b.Acme.ID))

	entries, err := b.Store.Audit.ForOrg(b.Ctx, b.Acme.ID, 10)
	require.NoError(t, err)
	require.Equal(t, "delivery.unsubscribe", entries[0].Action, "admins see it in their org's history")
	require.Equal(t, audit.Actor{Email: "OPS@acme.example"}, entries[0].Actor)
	requireJSON(t, `{"to": ["ops@acme.example", "boss@acme.example"], "suppressed": false}`, entries[0].Old)
	requireJSON(t, `{"to": ["boss@acme.example"], "suppressed": true}`, entries[0].New)
	require.Equal(t, auditBefore+1, b.AuditCount(t))

	// A second click changes nothing and still succeeds.
	again, err := b.Store.Unsubscribe.Unsubscribe(b.Ctx, token)
	require.NoError(t, err)
	require.Equal(t, res, again)
	require.Equal(t, auditBefore+1, b.AuditCount(t))
	require.Equal(t, []string{"boss@acme.example"}, b.delivery(t, b.Acme.ID).Email.To)

	// The other org still mails the same address.
	require.Equal(t, []string{"ops@acme.example"}, b.delivery(t, b.Other.ID).Email.To)
	require.Empty(t, b.suppressed(t, b.Other.ID))

	// The last address goes with the email delivery; the webhook stays.
	_, err = b.Store.Unsubscribe.Unsubscribe(b.Ctx, b.unsubscribeToken(t, b.Acme.ID, "boss@acme.example"))
	require.NoError(t, err)
	require.Equal(t, &schedule.DeliveryConfig{Webhook: &schedule.WebhookDelivery{URL: "https://hooks.acme.example/x"}}, b.delivery(t, b.Acme.ID))
}

func TestUnsubscribeLastRecipient(t *testing.T) {
	b := setup(t)
	// Technicians on: the email delivery stays, for them.
	b.saveDelivery(t, b.Acme.ID, `{"email":{"to":["ops@acme.example"],"technicians":true}}`)
	_, err := b.Store.Unsubscribe.Unsubscribe(b.Ctx, b.unsubscribeToken(t, b.Acme.ID, "ops@acme.example"))
	require.NoError(t, err)
	require.Equal(t, &schedule.DeliveryConfig{Email: &schedule.EmailDelivery{Technicians: true}}, b.delivery(t, b.Acme.ID))

	// Nothing else: the delivery goes.
	b.saveDelivery(t, b.Other.ID, `{"email":{"to":["ops@globex.example"]}}`)
	_, err = b.Store.Unsubscribe.Unsubscribe(b.Ctx, b.unsubscribeToken(t, b.Other.ID, "ops@globex.example"))
	require.NoError(t, err)
	require.Nil(t, b.delivery(t, b.Other.ID))
	c, err := b.Store.Tenants.Fieldforce(b.Ctx, b.Other.ID)
	require.NoError(t, err)
	require.JSONEq(t, `{"briefing":{"timezone":"UTC","schedule_local_time":"08:00"}}`, string(c.Raw), "saved in canonical form")
}

func TestUnsubscribeTechnicianNotInTheList(t *testing.T) {
	b := setup(t)
	b.saveDelivery(t, b.Acme.ID, `{"email":{"to":["ops@acme.example"],"technicians":true}}`)
	configBefore := b.delivery(t, b.Acme.ID)

	token := b.unsubscribeToken(t, b.Acme.ID, "Tech@Acme.example")
	_, err := b.Store.Unsubscribe.Unsubscribe(b.Ctx, token)
	require.NoError(t, err)
	require.Equal(t, configBefore, b.delivery(t, b.Acme.ID), "the list is untouched")
	require.Equal(t, map[string]bool{"tech@acme.example": true}, b.suppressed(t, b.Acme.ID))
	entries, err := b.Store.Audit.ForOrg(b.Ctx, b.Acme.ID, 1)
	require.NoError(t, err)
	require.Equal(t, "delivery.unsubscribe", entries[0].Action)
	requireJSON(t, `{"to": ["ops@acme.example"], "suppressed": false}`, entries[0].Old)
	requireJSON(t, `{"to": ["ops@acme.example"], "suppressed": true}`, entries[0].New)

	// An org that never saved a config records the suppression alone.
	_, err = b.Store.Unsubscribe.Unsubscribe(b.Ctx, b.unsubscribeToken(t, b.Other.ID, "tech@globex.example"))
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"tech@globex.example": true}, b.suppressed(t, b.Other.ID))
	c, err := b.Store.Tenants.Fieldforce(b.Ctx, b.Other.ID)
	require.NoError(t, err)
	require.False(t, c.Found, "no config was created")
}

func TestUnsubscribeFromADeletedOrg(t *testing.T) {
	b := setup(t)
	token := b.unsubscribeToken(t, b.Other.ID, "ops@globex.example")
	_, err := b.Store.DB.Exec(b.Ctx, `DELETE FROM orgs WHERE id = $1`, b.Other.ID)
	require.NoError(t, err)
	_, err = b.Store.Unsubscribe.Unsubscribe(b.Ctx, token)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.Store.Unsubscribe.Target(b.Ctx, token)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
}

func requireJSON(t *testing.T, want string, got any) {
	t.Helper()
	raw, ok := got.(json.RawMessage)
	require.True(t, ok, "%T", got)
	require.JSONEq(t, want, string(raw))
}

// A technician who follows the unsubscribe link of a day sheet sent
// before day sheets stopped carrying one is not stopped silently: their
// request is recorded on the technician, with its time, and audited, where
// the office sees it (docs/delivery.md, "Stopping day sheets"); another
// org's technician with that address is untouched.
func TestUnsubscribeOfATechnicianIsTheirVisibleStop(t *testing.T) {
	b := setup(t)
	at := time.Date(2026, 11, 26, 14, 2, 0, 0, time.UTC)
	b.Store.Unsubscribe.Now = func() time.Time { return at }
	b.saveDelivery(t, b.Acme.ID, `{"email":{"technicians":true}}`)
	var ana, other int64
	require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `INSERT INTO technicians (org_id, name, email) VALUES ($1, 'Ana', 'ana@acme.example') RETURNING id`, b.Acme.ID).Scan(&ana))
	require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `INSERT INTO technicians (org_id, name, email) VALUES ($1, 'Ana', 'ana@acme.example') RETURNING id`, b.Other.ID).Scan(&other))

	_, err := b.Store.Unsubscribe.Unsubscribe(b.Ctx, b.unsubscribeToken(t, b.Acme.ID, "Ana@Acme.example"))
	require.NoError(t, err)
	stopped := func(id int64) *time.Time {
		var s *time.Time
		require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `SELECT day_sheets_stopped_at FROM technicians WHERE id = $1`, id).Scan(&s))
		return s
	}
	require.NotNil(t, stopped(ana))
	require.True(t, stopped(ana).Equal(at))
	require.Nil(t, stopped(other), "another org's technician")
	require.Equal(t, 1, testutil.Count(t, b.Store.DB, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'field.technician.day_sheets_stop'
		AND lower(actor_email) = 'ana@acme.example'`, b.Acme.ID))

	// A second click keeps the first time.
	b.Store.Unsubscribe.Now = func() time.Time { return at.Add(time.Hour) }
	_, err = b.Store.Unsubscribe.Unsubscribe(b.Ctx, b.unsubscribeToken(t, b.Acme.ID, "ana@acme.example"))
	require.NoError(t, err)
	require.True(t, stopped(ana).Equal(at))
}
