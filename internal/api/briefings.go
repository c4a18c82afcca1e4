package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
)

// apiBriefingJSON is GET /api/v1/briefings/{date}'s answer. Content is the
// newest revision's snapshot, null until one was generated.
type apiBriefingJSON struct {
	Date        string             `json:"date"`
	Status      string             `json:"status"`
	Timezone    string             `json:"timezone"`
	GeneratedAt *time.Time         `json:"generated_at"`
	Revision    int                `json:"revision"`
	Content     *snapshot.Snapshot `json:"content"`
}

// apiBriefing answers the token's org's briefing for an org-local date.
func (a *API) apiBriefing(c echo.Context) error {
	date, err := schedule.ParseDate(c.Param("date"))
	if err != nil {
		return apperr.FieldError("date", "want an org-local date as YYYY-MM-DD")
	}
	b, err := a.briefings.Get(c.Request().Context(), Token(c).OrgID, date)
	if err != nil {
		return err
	}
	out := apiBriefingJSON{Date: b.Date.String(), Status: b.Status, Timezone: b.Timezone, Revision: b.Revision}
	if b.Content != nil {
		// At most snapshot.MaxBytes in all, whenever it was stored
		// (docs/briefing-content.md, "Bounds").
		_, content, err := snapshot.Encode(*b.Content)
		if err != nil {
			return err
		}
		out.Content = &content
	}
	if !b.GeneratedAt.IsZero() {
		out.GeneratedAt = &b.GeneratedAt
	}
	return c.JSON(http.StatusOK, out)
}
