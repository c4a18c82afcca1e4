package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
	"fieldbrief/internal/transport"
	"fieldbrief/views"
)

// testMessageURL is where an org's admins read one of its test emails.
func testMessageURL(slug string, deliveryID int64) string {
	return settingsURL(slug) + "/tests/" + strconv.FormatInt(deliveryID, 10)
}

// testMessage shows a test email of the org's, kept in the outbox because
// no SMTP server is configured: its admins read what was sent without the
// staff console (docs/delivery.md, "The outbox"). Another org's test, a
// delivery that is not a test email, or one no longer in the outbox is
// a 404.
func (s *Server) testMessage(c echo.Context) error {
	e, err := s.testOutboxEntry(c)
	if err != nil {
		return err
	}
	m := currentMembership(c)
	id := c.Param("id")
	stored, err := s.tenants.Fieldforce(c.Request().Context(), m.Org.ID)
	if err != nil {
		return err
	}
	p := views.TestMessage{Page: s.page(c, e.Subject), At: e.CreatedAt, From: e.From, To: e.To, Subject: e.Subject,
		Text: e.Text, Back: settingsURL(m.Org.Slug)}
	p.When = s.orgTime(localizer(c), stored, e.CreatedAt)
	p.Section = "settings"
	if e.HTML != "" {
		p.HTMLURL = settingsURL(m.Org.Slug) + "/tests/" + id + "/html"
	}
	return s.render(c, http.StatusOK, views.TestMessagePage(p))
}

// testMessageHTML serves a test email's HTML part as is, under the
// outbox's sandbox policy (outboxHTMLPolicy), framed by our own pages only.
func (s *Server) testMessageHTML(c echo.Context) error {
	e, err := s.testOutboxEntry(c)
	if err != nil {
		return err
	}
	return outboxHTML(c, e)
}

// testOutboxEntry loads the org's test email :id (a delivery id) from the
// outbox, by the Message-ID it was sent with.
func (s *Server) testOutboxEntry(c echo.Context) (transport.OutboxEntry, error) {
	ctx := c.Request().Context()
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return transport.OutboxEntry{}, apperr.Errorf(apperr.NotFound, "There is no such test email.")
	}
	orgID := currentMembership(c).Org.ID
	messageID, err := s.deliver.TestEmailMessageID(ctx, orgID, id, s.sender.From)
	if err != nil {
		return transport.OutboxEntry{}, err
	}
	return transport.GetOrgOutbox(ctx, database.Reader(ctx, s.db), orgID, messageID)
}
