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
	m := views.StaffAudit{Page: s.page(c, "Audit log"), Org: f.OrgSlug, Actor: f.Actor}
	m.Section = "staff"
	for _, e := range entries {
		m.Entries = append(m.Entries, views.AuditRow{
			At: e.At, Actor: e.Actor.Email, Org: e.OrgSlug, Action: e.Action, Target: e.Target,
			Old: jsonText(e.Old), New: jsonText(e.New), Reason: e.Reason,
		})
	}
	return s.render(c, http.StatusOK, views.StaffAuditPage(m))
}

// jsonText shows an audit value as the JSON it was stored as.
func jsonText(v any) string {
	if raw, ok := v.(json.RawMessage); ok {
		return string(raw)
	}
	return ""
}
