package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/places"
	"fieldbrief/views"
)

// zoneResultsLimit keeps the picker's list short enough to scan by eye.
const zoneResultsLimit = 12

// zoneSearch answers the time zone picker's search (a stable interface: docs/decisions/0003-stable-interfaces.md): the
// zones matching q, best first, each with its offset and wall clock now.
// Without JavaScript nobody calls it; a client that sends the field's own
// name (timezone) instead of q is answered the same.
func (s *Server) zoneSearch(c echo.Context) error {
	q := c.QueryParam("q")
	if q == "" {
		q = c.QueryParam("timezone")
	}
	q = places.Bound(q) // longer than any name: echo back only what was searched
	now, l, r := s.now(), s.clockLocale(c), zoneReader(localizer(c))
	found := places.Search(q, r, now, zoneResultsLimit)
	unique, _ := places.Resolve(q, r, now)
	options := make([]views.ZoneOption, len(found))
	for i, r := range found {
		options[i] = zoneOption(r, l, now)
		options[i].Unique = r.Zone == unique && i == 0
	}
	return s.render(c, http.StatusOK, views.ZoneResults(views.Page{I18n: localizer(c)}, q, options))
}

// zoneReader is who searches the zones: the reader's language, whose
// names are found first and shown, and the org's region, whose places and
// zones come first among equals (docs/timezone-picker.md, "The reader's
// language and region").
func zoneReader(tr *i18n.Localizer) places.Reader {
	_, region, _ := strings.Cut(tr.Formats(), "-")
	return places.Reader{Lang: tr.Language(), Region: region}
}

// zoneOption is a search result as the picker shows it, its zone named in
// the reader's language ("Central Time (Chicago)") above the IANA name, its
// wall clock now in the reader's clock ("8:04 AM", "08:04").
func zoneOption(r places.Result, l locale.Locale, now time.Time) views.ZoneOption {
	local := r.Local
	if z, err := time.LoadLocation(r.Zone); err == nil {
		local = l.Time(now.In(z))
	}
	return views.ZoneOption{Name: r.Zone, City: r.City, Region: r.Region, Offset: r.Offset, Local: local,
		Label: l.ZoneName(r.Zone, now)}
}
