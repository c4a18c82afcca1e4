package web

import (
	"github.com/labstack/echo/v4"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/places"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/text"
	"fieldbrief/internal/tokens"
	"fieldbrief/views"
)

// Context keys set by the middleware.
const (
	ctxUser        = "fieldbrief.user"
	ctxOrg         = "fieldbrief.org" // *orgScope
	ctxMemberships = "fieldbrief.memberships"
	ctxCSRF        = "fieldbrief.csrf"
	ctxVisit       = "fieldbrief.visit" // auth.Visit: the session's user, memberships and staff org
)

// currentUser is the signed-in user; ok is false for anonymous requests.
func currentUser(c echo.Context) (accounts.User, bool) {
	u, ok := c.Get(ctxUser).(accounts.User)
	return u, ok
}

// orgScope is what a request under /orgs/:slug knows about its org, looked
// up once: the membership (requireMember, from the session's statement)
// and, on first use, the org's zone and today (orgZone).
type orgScope struct {
	m    tenants.Membership
	zone *orgZone
}

// scope is the request's org scope; empty outside /orgs/:slug.
func scope(c echo.Context) *orgScope {
	if sc, ok := c.Get(ctxOrg).(*orgScope); ok {
		return sc
	}
	return &orgScope{}
}

// currentMembership is the user's access to the org in the URL, set by
// requireMember.
func currentMembership(c echo.Context) tenants.Membership { return scope(c).m }

// actor is who the audit log records for this request.
func actor(c echo.Context) audit.Actor {
	u, _ := currentUser(c)
	return audit.Actor{UserID: u.ID, Email: u.Email}
}

// page builds the layout model shared by every full page: user, org
// switcher, current org and the CSRF token for forms and htmx.
func (s *Server) page(c echo.Context, title string) views.Page {
	p := views.Page{Title: title, Limits: pageLimits, I18n: localizer(c)}
	p.CSRF, _ = c.Get(ctxCSRF).(string)
	if u, ok := currentUser(c); ok {
		p.User = &views.User{Email: u.Email, IsStaff: u.IsStaff}
	}
	ms, _ := c.Get(ctxMemberships).([]tenants.Membership)
	for _, m := range ms {
		p.Orgs = append(p.Orgs, views.OrgLink{Slug: m.Org.Slug, Name: m.Org.Name, Admin: m.IsAdmin(), EditField: m.CanEditField()})
	}
	if m := currentMembership(c); m.Org.ID != 0 {
		p.Org = &views.OrgLink{Slug: m.Org.Slug, Name: m.Org.Name, Admin: m.IsAdmin(), EditField: m.CanEditField()}
	}
	return p
}

// pageLimits are the limits pages state, from the packages that enforce them.
var pageLimits = views.Limits{
	AddressLen:      text.MaxAddressLen,
	NameLen:         text.MaxNameLen,
	Recipients:      schedule.MaxRecipients,
	ImportMB:        fieldimport.MaxBytes >> 20,
	ImportRows:      fieldimport.MaxRows,
	AuditExportRows: maxAuditExport,
	SlugLen:         tenants.MaxSlugLen,
	TokenNameLen:    tokens.MaxNameLen,
	WebhookURLLen:   schedule.MaxWebhookURLSize,
	Customer:        field.MaxCustomer,
	Address:         field.MaxAddress,
	Phone:           field.MaxPhone,
	Notes:           field.MaxNotes,
	JobType:         field.MaxJobType,
	ExternalRef:     field.MaxExternalRef,
	ZoneQuery:       places.MaxQuery,
	PasswordLen:     accounts.MinPasswordLen,
	SendWithin:      schedule.FormatWithin(schedule.DefaultSendWithin),
	MinSendWithin:   schedule.FormatWithin(schedule.MinSendWithin),
	MaxSendWithin:   schedule.FormatWithin(schedule.MaxSendWithin),
}
