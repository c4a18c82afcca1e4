package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/text"
	"fieldbrief/views"
)

// The audit log's filters (docs/audit.md): dates are UTC calendar days, the
// "to" day included; text filters are bounded so a search stays cheap.
const (
	maxAuditSearch = 100 // characters of the free-text search
	maxAuditActor  = text.MaxAddressLen
	maxAuditAction = 100
)

var auditSlug = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// auditForm reads the filters from the query string. Each bad value is
// reported beside its field; the others still apply.
func auditForm(c echo.Context) (views.AuditFilterForm, audit.Filter, map[string]string) {
	form := views.AuditFilterForm{
		From:   strings.TrimSpace(c.QueryParam("from")),
		To:     strings.TrimSpace(c.QueryParam("to")),
		Org:    strings.ToLower(strings.TrimSpace(c.QueryParam("org"))),
		Actor:  strings.TrimSpace(c.QueryParam("actor")),
		Action: strings.TrimSpace(c.QueryParam("action")),
		Query:  strings.TrimSpace(c.QueryParam("q")),
	}
	errs := map[string]string{}
	var f audit.Filter
	day := func(field, v string) time.Time {
		if v == "" {
			return time.Time{}
		}
		d, err := time.Parse(time.DateOnly, v)
		if err != nil {
			errs[field] = "Enter a date as YYYY-MM-DD, for example 2026-03-08."
			return time.Time{}
		}
		return d
	}
	f.From = day("from", form.From)
	if to := day("to", form.To); !to.IsZero() {
		f.Until = to.AddDate(0, 0, 1) // the whole "to" day
	}
	if !f.From.IsZero() && !f.Until.IsZero() && !f.From.Before(f.Until) {
		errs["to"] = "Choose a day on or after the “from” day."
	}
	if form.Org != "" && !auditSlug.MatchString(form.Org) {
		errs["org"] = "An org slug has lower-case letters, digits, - and _ only."
	} else {
		f.OrgSlug = form.Org
	}
	text := func(field, v string, max int, set *string) {
		if utf8.RuneCountInString(v) > max {
			errs[field] = "Keep it to at most " + strconv.Itoa(max) + " characters."
			return
		}
		*set = v
	}
	text("actor", form.Actor, maxAuditActor, &f.Actor)
	text("action", form.Action, maxAuditAction, &f.Action)
	text("q", form.Query, maxAuditSearch, &f.Query)
	return form, f, errs
}

// filterQuery is the filters as a query string, for the pagination and
// export links: the same filters survive a reload or a shared link.
func filterQuery(form views.AuditFilterForm) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"from": form.From, "to": form.To, "org": form.Org, "actor": form.Actor, "action": form.Action, "q": form.Query} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// staffAudit shows the audit log newest first, a fixed page at a time
// (keyset: ?before=<entry id>), filtered by UTC date range, org slug,
// actor email, action and a case-insensitive search.
func (s *Server) staffAudit(c echo.Context) error {
	ctx := c.Request().Context()
	form, f, errs := auditForm(c)
	if b := c.QueryParam("before"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		if err != nil || id <= 0 {
			return apperr.Errorf(apperr.Malformed, "That page link is broken: start again from the newest entries.")
		}
		f.Before = id
	}
	m := views.StaffAudit{Page: s.page(c, "Audit log"), Filter: form, Errors: errs, Before: f.Before}
	m.Section = "staff"
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusUnprocessableEntity
	}
	actions, err := s.audit.Actions(ctx)
	if err != nil {
		return err
	}
	m.Actions = actions
	f.Limit = audit.PageSize + 1 // one more tells whether there is an older page
	entries, err := s.audit.List(ctx, f)
	if err != nil {
		return err
	}
	if len(entries) > audit.PageSize {
		entries = entries[:audit.PageSize]
		m.Next = entries[len(entries)-1].ID
	}
	m.Entries = auditRows(entries)
	m.Query = filterQuery(form)
	return s.render(c, status, views.StaffAuditPage(m))
}

// auditRows is the view of audit entries: each change field by field, and
// the whole old and new documents.
func auditRows(entries []audit.Entry) []views.AuditRow {
	rows := make([]views.AuditRow, 0, len(entries))
	for _, e := range entries {
		old, neu := rawJSON(e.Old), rawJSON(e.New)
		rows = append(rows, views.AuditRow{
			At: e.At, Actor: e.Actor.Email, Org: e.OrgSlug, Action: e.Action, Target: e.Target,
			Changes: auditChanges(old, neu), Old: jsonDoc(old), New: jsonDoc(neu), Reason: e.Reason,
		})
	}
	return rows
}

// rawJSON is an audit value as read back: the JSON it was stored as.
func rawJSON(v any) json.RawMessage {
	raw, _ := v.(json.RawMessage)
	return raw
}

// jsonDoc is a whole audit value, indented for reading; "" when absent.
func jsonDoc(raw json.RawMessage) string {
	if _, ok := decodeJSON(raw); !ok {
		return ""
	}
	return indentJSON(raw)
}
