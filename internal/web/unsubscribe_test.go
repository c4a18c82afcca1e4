package web

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testutil"
)

// unsubscribePath signs a link for email in org and returns its path and
// query, as the email would carry it.
func (f *fixture) unsubscribePath(orgID int64, email string) string {
	f.t.Helper()
	link, err := f.store.Unsubscribe.URL(context.Background(), "https://app.fieldbrief.test", orgID, email)
	require.NoError(f.t, err)
	u, err := url.Parse(link)
	require.NoError(f.t, err)
	require.Equal(f.t, "/unsubscribe", u.Path)
	return u.RequestURI()
}

func (f *fixture) recipients(orgID int64) []string {
	f.t.Helper()
	c, err := f.store.Tenants.Fieldforce(context.Background(), orgID)
	require.NoError(f.t, err)
	require.NoError(f.t, c.Err)
	if c.Config.Delivery == nil || c.Config.Delivery.Email == nil {
		return nil
	}
	return c.Config.Delivery.Email.To
}

func (f *fixture) saveRecipients(orgID int64, delivery string) {
	f.t.Helper()
	_, err := f.store.Tenants.SaveFieldforce(context.Background(), audit.System, orgID, []byte(`{"briefing":{"timezone":"UTC","schedule_local_time":"08:00"},"delivery":`+delivery+`}`), tenants.AnyVersion)

	require.NoError(f.t, err)
}

func TestUnsubscribeOneClick(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.saveRecipients(f.orgA.ID, `{"email":{"to":["ops@acme.test","boss@acme.test"]}}`)
	link := f.unsubscribePath(f.orgA.ID, "ops@acme.test")

	// Opening the link asks; it changes nothing, as mail scanners open it too.
	before := fingerprint(t, f)
	page := f.anon().get(link)
	require.Equal(t, http.StatusOK, page.Code, page.Body)
	doc := parseDoc(t, page.Body)
	require.Contains(t, page.Body, "<p>Stop briefing emails to <strong>ops@acme.test</strong> for <strong>Acme Field Services</strong>?</p>")
	form := doc.find(attrIs("action", "/unsubscribe"))
	require.Equal(t, "post", form.attr("method"))
	token := strings.TrimPrefix(link, "/unsubscribe?t=")
	require.Equal(t, token, form.find(attrIs("name", "t")).attr("value"))
	require.Equal(t, before, fingerprint(t, f), "GET changed the database")

	// The provider's one-click POST: no cookie, no CSRF token, the token in
	// the query and RFC 8058's body.
	audit := f.auditCount()
	oneClick := f.anon().postNoCSRF(link, url.Values{"List-Unsubscribe": {"One-Click"}})
	require.Equal(t, http.StatusOK, oneClick.Code, oneClick.Body)
	require.Contains(t, pageText(t, oneClick.Body), "You won't get these emails any more") // the words, however escaped
	require.Equal(t, []string{"boss@acme.test"}, f.recipients(f.orgA.ID))
	require.Equal(t, audit+1, f.auditCount())
	var actor, action string
	require.NoError(t, f.db.QueryRow(context.Background(),
		`SELECT actor_email, action FROM audit_log WHERE org_id = $1 ORDER BY id DESC LIMIT 1`, f.orgA.ID).Scan(&actor, &action))
	require.Equal(t, []string{"ops@acme.test", "delivery.unsubscribe"}, []string{actor, action})
	history := f.as(&f.adminA).get(settingsPath).Body
	require.Contains(t, history, "ops@acme.test · <span class=\"mono\">delivery.unsubscribe</span>", "the org's admins see who left")

	// Again, as multipart/form-data (which RFC 8058 names): the same page,
	// nothing more changes.
	after := fingerprint(t, f)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("List-Unsubscribe", "One-Click"))
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, f.ts.URL+link, &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := f.anon().hc.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	again, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, string(again))
	require.Contains(t, pageText(t, string(again)), "You won't get these emails any more")
	require.Equal(t, after, fingerprint(t, f), "a second click changed something")
}

// The confirmation page's button, for an address that is not in the list
// (a technician's day sheet): the suppression is what the worker reads.
func TestUnsubscribeButtonSuppressesATechnician(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.saveRecipients(f.orgA.ID, `{"email":{"to":["ops@acme.test"],"technicians":true}}`)
	link := f.unsubscribePath(f.orgA.ID, "tech@acme.test")
	browser := f.anon()
	require.Equal(t, http.StatusOK, browser.get(link).Code)
	res := browser.post("/unsubscribe", url.Values{"t": {strings.TrimPrefix(link, "/unsubscribe?t=")}})
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	require.Contains(t, res.Body, "tech@acme.test")

	require.Equal(t, []string{"ops@acme.test"}, f.recipients(f.orgA.ID))
	suppressed, err := testutil.Suppressed(context.Background(), f.db, f.orgA.ID)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"tech@acme.test": true}, suppressed)
	suppressed, err = testutil.Suppressed(context.Background(), f.db, f.orgB.ID)
	require.NoError(t, err)
	require.Empty(t, suppressed)
}

func TestUnsubscribeBadLinks(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.saveRecipients(f.orgA.ID, `{"email":{"to":["ops@acme.test"]}}`)
	token := strings.TrimPrefix(f.unsubscribePath(f.orgA.ID, "ops@acme.test"), "/unsubscribe?t=")
	flipped := []byte(token)
	flipped[len(flipped)-2] ^= 'A' ^ 'B'
	before := fingerprint(t, f)

	for name, bad := range map[string]string{
		"missing":   "",
		"tampered":  string(flipped),
		"truncated": token[:len(token)-3],
		"too long":  strings.Repeat("A", 4000),
		"other org": strings.TrimPrefix(f.unsubscribePath(f.orgB.ID, "ops@acme.test"), "/unsubscribe?t=")[:3] + token[3:],
	} {
		link := "/unsubscribe?t=" + url.QueryEscape(bad)
		for _, res := range []response{
			f.anon().get(link),
			f.anon().postNoCSRF(link, url.Values{"List-Unsubscribe": {"One-Click"}}),
			f.anon().post("/unsubscribe", url.Values{"t": {bad}}),
		} {
			require.Equal(t, http.StatusUnprocessableEntity, res.Code, "%s: %s", name, res.Body)
			require.Contains(t, res.Body, "This unsubscribe link is not valid", name)
		}
	}
	// A NUL byte or invalid UTF-8 is refused before any handler, as
	// everywhere (TestNULAndInvalidUTF8Are400).
	for name, bad := range map[string]string{
		"NUL":           token[:5] + "\x00" + token[5:],
		"invalid UTF-8": token[:5] + "\xff\xfe" + token[5:],
	} {
		link := "/unsubscribe?t=" + url.QueryEscape(bad)
		for _, res := range []response{
			f.anon().get(link),
			f.anon().postNoCSRF(link, url.Values{"List-Unsubscribe": {"One-Click"}}),
			f.anon().post("/unsubscribe", url.Values{"t": {bad}}),
		} {
			require.Equal(t, http.StatusBadRequest, res.Code, name)
			require.Contains(t, res.Body, "not valid UTF-8", name)
		}
	}
	require.Equal(t, before, fingerprint(t, f), "a bad link changed something")
}

// pageText is a page's visible text, its escapes read.
func pageText(t *testing.T, body string) string {
	doc := parseDoc(t, body)
	return doc.text()
}
