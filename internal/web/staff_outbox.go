package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
	"fieldbrief/internal/transport"
	"fieldbrief/views"
)

// outboxPageSize is how many messages a page of the outbox lists.
const outboxPageSize = 50

// outboxHTMLPolicy is the CSP of a stored message's HTML part. The message
// is shown in a frame of its own rather than in srcdoc, whose document would
// inherit our policy and lose the inline styles every email uses. Here it
// gets a policy of its own, as strict as an email allows: sandbox (an
// opaque origin: no script, no forms, no cookies, even when opened
// directly), nothing loaded but data: images, so no tracking pixel calls
// out, and framed only by our own pages.
const outboxHTMLPolicy = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'; " +
	"frame-ancestors 'self'; base-uri 'none'; form-action 'none'"

// staffOutbox lists the mail kept instead of sent (SMTP_URL unset), newest
// first; ?before=<id> pages on to older messages.
func (s *Server) staffOutbox(c echo.Context) error {
	var before int64
	if v := c.QueryParam("before"); v != "" {
		var err error
		if before, err = strconv.ParseInt(v, 10, 64); err != nil || before <= 0 {
			return apperr.Errorf(apperr.Invalid, "before must be a message number, as in the outbox's own links.")
		}
	}
	// One more than a page tells whether there is an older page.
	entries, err := transport.ListOutbox(c.Request().Context(), database.Reader(c.Request().Context(), s.db), outboxPageSize+1, before)
	if err != nil {
		return err
	}
	m := views.StaffOutbox{Page: s.page(c, "Outbox"), Sending: s.cfg.SMTPURL != "", Before: before}
	m.Section = "staff"
	if len(entries) > outboxPageSize {
		entries = entries[:outboxPageSize]
		m.Next = entries[len(entries)-1].ID
	}
	for _, e := range entries {
		m.Messages = append(m.Messages, views.OutboxRow{ID: e.ID, At: e.CreatedAt, Org: e.OrgSlug, To: e.To, Subject: e.Subject})
	}
	return s.render(c, http.StatusOK, views.StaffOutboxPage(m))
}

// staffOutboxMessage shows one message: its headers, the text part, and
// the HTML part framed from staffOutboxHTML.
func (s *Server) staffOutboxMessage(c echo.Context) error {
	e, err := s.outboxEntry(c)
	if err != nil {
		return err
	}
	m := views.StaffOutboxMessage{
		Page: s.page(c, e.Subject), ID: e.ID, At: e.CreatedAt, Org: e.OrgSlug,
		From: e.From, To: e.To, Subject: e.Subject, MessageID: e.MessageID,
		ListUnsubscribe: e.Headers["List-Unsubscribe"], Text: e.Text, HasHTML: e.HTML != "",
	}
	m.Section = "staff"
	return s.render(c, http.StatusOK, views.StaffOutboxMessagePage(m))
}

// staffOutboxHTML serves a message's HTML part, as is, under
// outboxHTMLPolicy. The global headers forbid framing; this one response
// may be framed by our own pages.
func (s *Server) staffOutboxHTML(c echo.Context) error {
	e, err := s.outboxEntry(c)
	if err != nil {
		return err
	}
	return outboxHTML(c, e)
}

// outboxHTML answers with a kept message's HTML part, as is, under
// outboxHTMLPolicy, framed by our own pages only: the staff outbox and an
// admin's test messages both show it so.
func outboxHTML(c echo.Context, e transport.OutboxEntry) error {
	if e.HTML == "" {
		return apperr.Errorf(apperr.NotFound, "This message has no HTML part.")
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", outboxHTMLPolicy)
	h.Set("X-Frame-Options", "SAMEORIGIN")
	return c.HTMLBlob(http.StatusOK, []byte(e.HTML))
}

// outboxEntry loads the message named by :id; an id that is not a
// positive number is NotFound, like one that does not exist.
func (s *Server) outboxEntry(c echo.Context) (transport.OutboxEntry, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return transport.OutboxEntry{}, apperr.Errorf(apperr.NotFound, "No such message in the outbox.")
	}
	e, err := transport.GetOutbox(c.Request().Context(), database.Reader(c.Request().Context(), s.db), id)
	if err != nil {
		return e, err
	}
	// Account emails are kept with their token withheld
	// (accounts.EmailHandler); one kept before that rule still shows none.
	e.Text, e.HTML = accounts.WithholdLinks(e.Text), accounts.WithholdLinks(e.HTML)
	return e, nil
}
