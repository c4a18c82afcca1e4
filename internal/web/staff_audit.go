package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/orgs"
	"fieldbrief/views"
)

// staffAudit shows the audit log newest first, filtered by org slug
// (?org=, exact) and actor email (?actor=, substring).
func (s *Server) staffAudit(c echo.Context) error {
	f := orgs.AuditFilter{OrgSlug: strings.TrimSpace(c.QueryParam("org")), Actor: strings.TrimSpace(c.QueryParam("actor"))}
	entries, err := s.orgs.ListAudit(c.Request().Context(), f)
	if err != nil {
		return err
	}
	m := views.StaffAudit{Page: s.page(c, "Audit log"), Org: f.OrgSlug, Actor: f.Actor, Entries: auditRows(entries)}
	m.Section = "staff"
	return s.render(c, http.StatusOK, views.StaffAuditPage(m))
}

// auditRows is the view of audit entries: each change field by field, and
// the whole old and new documents.
func auditRows(entries []orgs.AuditEntry) []views.AuditRow {
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
