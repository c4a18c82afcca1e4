package web

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/daylinks"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// The day link page, GET /t/{token} (docs/delivery.md, "Day links"): the
// token in the technician's email is the authority, so it needs no
// account. It is read-only and shows the technician's jobs of the link's
// date and their own jobs overdue on it, as they are now.
//
// The token never reaches a log: the request log and the error log name
// the route pattern ("/t/:token"), not the path, and no error here
// carries it.

// Day link requests per client address: a technician opens their day a
// few times an hour, but a crew behind one office or carrier NAT shares an
// address; past the burst, one a second. Guessing a token is hopeless
// anyway (256 bits); the limit bounds what a client can make the database
// do (three queries a page).
const (
	dayLinkRate        = 1
	dayLinkBurst       = 60
	maxDayLinkLimiters = 10_000
)

// dayLinkHeaders go on every answer under /t/, the 404s and 429s too:
// nothing cached, no Referer sent to the maps site or anywhere else from
// a URL that is a credential, and no search engine keeps it.
func dayLinkHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Robots-Tag", "noindex, nofollow")
		return next(c)
	}
}

// dayLinkRateLimit holds each client address (an IPv6 one by its /64:
// clientNetwork) to dayLinkRate (a token bucket, as the API's per token). Over it: 429 with Retry-After.
func (s *Server) dayLinkRateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		now := s.now()
		r := s.dayLimits.Get(clientNetwork(c.RealIP()), now).ReserveN(now, 1)
		if d := r.DelayFrom(now); !r.OK() || d > 0 {
			r.CancelAt(now)
			secs := max(1, int(math.Ceil(d.Seconds())))
			c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
			// In the browser's language: no technician is known yet.
			return apperr.Refuse(apperr.TooMany, "daylink_too_many", apperr.Args{"Count": secs})
		}
		return next(c)
	}
}

// clientNetwork is the key a client is limited by: an IPv4 address, or an
// IPv6 address's /64, which one home, office or phone is given whole (a
// client choosing a new address in it gets no new burst).
//
// The sign-in throttle counts by it too: an IPv6 customer has a /64 and
// every address in it, so counting by address would count nothing.
func clientNetwork(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is6() || a.Is4In6() {
		return ip
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

// technicianDay shows a day link's page; a link that does not open (any
// reason) is the one 404.
func (s *Server) technicianDay(c echo.Context) error {
	ctx, now := c.Request().Context(), s.now()
	l, err := s.dayLinks.Open(ctx, c.Param("token"), now)
	if err != nil {
		// A link that does not open (daylink_not_found): whose link it was
		// is unknown, so the browser's language says it.
		return err
	}
	zone, err := schedule.LoadZone(l.Zone)
	if err != nil {
		return err
	}
	q := database.Reader(ctx, s.db)
	// The technician's language, else the org's, with the org's formats:
	// as their emails (docs/i18n.md); the page has no signed-in reader.
	tr, err := delivery.Reader(ctx, q, l.OrgID, l.TechnicianID)
	if err != nil {
		return err
	}
	lc := tr.Locale()
	jobs, cancelled, more, err := snapshot.TechnicianJobs(ctx, q, l.OrgID, l.TechnicianID, zone, l.Date, lc)
	if err != nil {
		return err
	}
	overdue, moreOverdue, err := snapshot.TechnicianOverdue(ctx, q, l.OrgID, l.TechnicianID, zone, l.Date, lc)
	if err != nil {
		return err
	}
	contact, _, err := field.ContactOf(ctx, q, l.OrgID, l.TechnicianID)
	if err != nil {
		return err
	}
	stopped := ""
	if at := contact.DaySheetsStoppedAt; at != nil {
		stopped = stamp(lc, *at, zone.Loc)
	}
	start, end := schedule.DayBounds(zone.Loc, l.Date)
	zoneAbbrev := lc.ZoneAbbrs(start.In(zone.Loc), end.Add(-1).In(zone.Loc)) // the reader's letters: MEZ (docs/i18n.md, "Zone abbreviations")
	c.Response().Header().Set("Content-Language", tr.Lang())
	return s.render(c, http.StatusOK, views.TechnicianDayPage(views.TechnicianDay{
		L: tr, OrgName: l.OrgName, Technician: l.TechnicianName,
		DateLabel: lc.DateYear(l.Date.Time()), Timezone: zone.Name, Zone: zoneAbbrev,
		ZoneName:   lc.ZoneName(zone.Name, start.Add(12*time.Hour)),
		ValidUntil: lc.Date(l.Date.AddDays(1).Time()),
		Jobs:       jobs, Cancelled: cancelled, More: more, Overdue: overdue, MoreOverdue: moreOverdue,
		SheetsAction: c.Request().URL.Path + "/day-sheets", SheetsStopped: stopped,
	}))
}

// technicianDaySheets is the day page's one form, POST /t/{token}/day-sheets
// (stop=true|false): the technician asks their office to stop emailing
// them day sheets, or to start again (docs/delivery.md, "Stopping day
// sheets"). The link's token is the authority, as for the page; the
// request is recorded on the technician, with its time, and audited as
// theirs, where the office sees it. Then back to the page.
func (s *Server) technicianDaySheets(c echo.Context) error {
	ctx := c.Request().Context()
	l, err := s.dayLinks.Open(ctx, c.Param("token"), s.now())
	if err != nil {
		return err
	}
	contact, found, err := field.ContactOf(ctx, s.db, l.OrgID, l.TechnicianID)
	if err != nil {
		return err
	}
	if !found {
		return apperr.Refuse(apperr.NotFound, "daylink_not_found", nil)
	}
	stop := c.FormValue("stop") != "false"
	if _, err := s.field.SetDaySheets(ctx, audit.Actor{Email: contact.Email}, l.OrgID, l.TechnicianID, stop, s.now()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, strings.TrimSuffix(c.Request().URL.Path, "/day-sheets")+"#day-sheets")
}

// technicianLinks are the date's day links as the briefing page lists
// them, for the org's admins, dispatchers and staff (members see none): that each was
// sent and until when, never a token.
func (s *Server) technicianLinks(c echo.Context, m tenants.Membership, date schedule.Date, loc *time.Location) ([]views.TechnicianLinkRow, error) {
	u, _ := currentUser(c)
	if !m.ReadsAll() && !u.IsStaff {
		return nil, nil
	}
	links, err := s.dayLinks.List(c.Request().Context(), m.Org.ID, daylinks.Filter{Date: date})
	if err != nil {
		return nil, err
	}
	now, lc := s.now(), localizer(c).Locale()
	rows := make([]views.TechnicianLinkRow, 0, len(links))
	for _, l := range links {
		r := views.TechnicianLinkRow{Technician: l.TechnicianName, Sent: stamp(lc, l.CreatedAt, loc), ValidUntil: stamp(lc, l.ExpiresAt, loc), State: "valid"}
		switch {
		case l.Revoked:
			r.State = "revoked"
		case !l.Live(now):
			r.State = "expired"
		}
		rows = append(rows, r)
	}
	return rows, nil
}
