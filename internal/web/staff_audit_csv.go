package web

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
)

// maxAuditExport bounds one CSV export; a bigger set ends with a note row
// saying so (docs/audit.md).
const maxAuditExport = 50_000

// auditCSVHeader names the export's columns.
var auditCSVHeader = []string{"id", "at_utc", "actor", "org", "action", "target", "reason", "old_value", "new_value"}

// staffAuditExport streams the filtered audit log as CSV, newest first,
// at most maxAuditExport rows, written as they are read (never the whole
// set in memory). Cells a spreadsheet would run as a formula are defused.
func (s *Server) staffAuditExport(c echo.Context) error {
	_, f, errs := auditForm(c)
	for field, msg := range errs { // the page's link carries valid filters; a hand-made one may not
		return apperr.FieldError(field, "These filters cannot be used (%s): %s", field, msg)
	}
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	res.Header().Set(echo.HeaderContentDisposition,
		`attachment; filename="audit-`+time.Now().UTC().Format("20060102-150405")+`.csv"`)
	w := csv.NewWriter(res)
	started := false
	start := func() error {
		if !started {
			started = true
			res.WriteHeader(http.StatusOK)
			return w.Write(auditCSVHeader)
		}
		return nil
	}
	n := 0
	err := s.audit.Each(c.Request().Context(), f, maxAuditExport+1, func(e audit.Entry) error {
		if err := start(); err != nil {
			return err
		}
		n++
		if n > maxAuditExport {
			return w.Write([]string{"# export stopped at " + strconv.Itoa(maxAuditExport) +
				" rows; narrow the filters (dates) for older entries"})
		}
		if err := w.Write(auditCSVRecord(e)); err != nil {
			return err
		}
		if n%500 == 0 {
			w.Flush()
			res.Flush()
		}
		return w.Error()
	})
	if err != nil {
		if !started {
			return err // nothing sent yet: the usual error page
		}
		// Halfway through, the status is sent: log and cut the file short.
		s.log.ErrorContext(c.Request().Context(), "audit export failed", "rows", n, "error", err)
		return nil
	}
	if err := start(); err != nil { // an empty set still gets its header
		return err
	}
	w.Flush()
	return w.Error()
}

// auditCSVRecord is one entry as a CSV row.
func auditCSVRecord(e audit.Entry) []string {
	rec := []string{
		strconv.FormatInt(e.ID, 10), e.At.UTC().Format(time.RFC3339), e.Actor.Email, e.OrgSlug,
		e.Action, e.Target, e.Reason, string(rawJSON(e.Old)), string(rawJSON(e.New)),
	}
	for i := range rec {
		rec[i] = csvSafe(rec[i])
	}
	return rec
}

// csvSafe defuses a cell a spreadsheet would read as a formula (OWASP's
// CSV injection advice): one starting with =, +, -, @, a tab or a carriage
// return gets a leading apostrophe.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
