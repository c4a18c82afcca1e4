package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// zoneResultsLimit keeps the picker's list short enough to scan by eye.
const zoneResultsLimit = 12

// maxZoneQuery is how much of the search text is searched, in characters.
const maxZoneQuery = 100

// zoneSearch answers the time zone picker's active search. The query is q,
// or the input's own field name when htmx sends the input's value.
func (s *Server) zoneSearch(c echo.Context) error {
	q := c.QueryParam("q")
	if q == "" {
		q = c.QueryParam("timezone")
	}
	q = strings.TrimSpace(q)
	if r := []rune(q); len(r) > maxZoneQuery { // no zone name or place is longer
		q = string(r[:maxZoneQuery])
	}
	now := s.now()
	var options []views.ZoneOption
	for _, info := range schedule.SearchZones(q, zoneResultsLimit) {
		z, err := schedule.LoadZone(info.Name)
		if err != nil {
			continue // listed but not loadable from the embedded tzdata: not worth offering
		}
		offset, local := schedule.ZoneLabel(z, now)
		options = append(options, views.ZoneOption{Name: z.Name, Place: place(info), Offset: offset, Local: local})
	}
	return s.render(c, http.StatusOK, views.ZoneResults(q, options))
}

// place is the zone's city and country for people who think in places.
func place(z schedule.ZoneInfo) string {
	parts := []string{z.City}
	if z.Country != "" {
		parts = append(parts, z.Country)
	}
	if z.Comment != "" {
		parts = append(parts, z.Comment)
	}
	return strings.Join(parts, ", ")
}
