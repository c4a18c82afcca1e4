package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// staffHome is the console's entry point.
func (s *Server) staffHome(c echo.Context) error {
	return c.Redirect(http.StatusSeeOther, "/staff/flags")
}

// staffFlags shows every global switch, then the per-org overrides of the
// selected flag (?flag=), searchable by slug or name (?q=).
func (s *Server) staffFlags(c echo.Context) error {
	m, err := s.staffFlagsModel(c, c.QueryParam("flag"), c.QueryParam("q"))
	if err != nil {
		return err
	}
	// The notice after a flip names the flag shown, never text from the URL.
	switch c.QueryParam("notice") {
	case "flag-off":
		m.Notice = "Turned off " + m.Key + " for every org."
	case "flag-on":
		m.Notice = "Turned on " + m.Key + " for every org (orgs with an override off stay off)."
	}
	return s.render(c, http.StatusOK, views.StaffFlagsPage(m))
}

// staffSetFlag flips a global switch. Fields: enabled (true/false, on/off),
// reason (required) and, to turn a switch off, confirm: the flag key typed
// by hand. The browser asks for it too; the server insists, so a replayed
// or hand-made POST cannot switch every org off in one step.
func (s *Server) staffSetFlag(c echo.Context) error {
	ctx, key := c.Request().Context(), c.Param("key")
	if err := s.requireFlag(ctx, key); err != nil {
		return err
	}
	form := views.GlobalFlagForm{Key: key, Reason: c.FormValue("reason")}
	enabled, err := parseSwitch(c.FormValue("enabled"))
	if err == nil && !enabled && c.FormValue("confirm") != key {
		err = apperr.FieldError("confirm", "Type %s to confirm turning it off for every org.", key)
	}
	if err == nil {
		err = s.flags.SetGlobal(ctx, actor(c), key, enabled, form.Reason)
	}
	if fe, ok := fieldError(err); ok {
		status := httpkit.StatusOf(err)
		switch fe.FieldName() {
		case "reason":
			form.ReasonError = i18n.English.Message(fe)
		case "confirm":
			form.ConfirmError = i18n.English.Message(fe)
		default:
			form.EnabledError = i18n.English.Message(fe)
		}
		m, err := s.staffFlagsModel(c, key, "")
		if err != nil {
			return err
		}
		m.Global = form
		return s.render(c, status, views.StaffFlagsPage(m))
	}
	if err != nil {
		return err
	}
	return redirect(c, "/staff/flags?flag="+url.QueryEscape(key)+"&notice=flag-"+onOff(enabled)+"#flag-"+key)
}

// staffSetOrgFlag sets one org's override. Field state: inherit, on or
// off; reason is optional. With htmx the answer is the org's table row.
func (s *Server) staffSetOrgFlag(c echo.Context) error {
	ctx, key := c.Request().Context(), c.Param("key")
	org, err := s.tenants.OrgBySlug(ctx, c.Param("slug"))
	if err != nil {
		return err
	}
	if err := s.requireFlag(ctx, key); err != nil {
		return err
	}
	q := c.FormValue("q")
	row := views.OrgFlagRow{Slug: org.Slug, Name: org.Name}
	state, err := flags.ParseOverride(c.FormValue("state"))
	if err == nil {
		err = s.flags.SetOrg(ctx, actor(c), org.ID, key, state, c.FormValue("reason"))
	}
	status := http.StatusOK
	if fe, ok := fieldError(err); ok {
		status, row.StateError, row.Reason = httpkit.StatusOf(err), i18n.English.Message(fe), c.FormValue("reason")
	} else if err != nil {
		return err
	} else if !isHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/staff/flags?flag="+url.QueryEscape(key)+"&q="+url.QueryEscape(q)+"#org-"+org.Slug)
	} else {
		row.Saved = true
	}
	global, override, err := s.flags.ForOrg(ctx, org.ID, key)
	if err != nil {
		return err
	}
	row.Override, row.Global, row.Effective = string(override), global, flags.Effective(global, override)
	if isHTMX(c) {
		csrf, _ := c.Get(ctxCSRF).(string)
		return s.render(c, status, views.OrgFlagRowView(csrf, key, q, row))
	}
	m, err := s.staffFlagsModel(c, key, q)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(m.Orgs, func(o views.OrgFlagRow) bool { return o.Slug == org.Slug }); i >= 0 {
		m.Orgs[i] = row
	} else {
		m.Orgs = append(m.Orgs, row)
	}
	return s.render(c, status, views.StaffFlagsPage(m))
}

// staffFlagsModel loads the console: the global switches and the org
// table of key (the briefing flag when key is empty or unknown).
func (s *Server) staffFlagsModel(c echo.Context, key, q string) (views.StaffFlags, error) {
	ctx := c.Request().Context()
	m := views.StaffFlags{Page: s.page(c, "Feature flags"), Query: strings.TrimSpace(q)}
	m.Section = "staff"
	flags, err := s.flags.List(ctx)
	if err != nil {
		return m, err
	}
	impacts, err := s.flags.Impacts(ctx)
	if err != nil {
		return m, err
	}
	for _, f := range flags {
		impact := impacts[f.Key]
		m.Flags = append(m.Flags, views.FlagRow{Key: f.Key, Description: f.Description, Enabled: f.Enabled, UpdatedAt: f.UpdatedAt,
			Impact: views.FlagImpact{Orgs: impact.Orgs, OverrideOn: impact.OverrideOn, OverrideOff: impact.OverrideOff}})
		if f.Key == key || (m.Key == "" && f.Key == schedule.FlagKey) {
			m.Key = f.Key
		}
	}
	if m.Key == "" && len(flags) > 0 {
		m.Key = flags[0].Key
	}
	if m.Key == "" {
		return m, nil
	}
	rows, err := s.flags.Orgs(ctx, m.Key, m.Query)
	if err != nil {
		return m, err
	}
	global := slices.ContainsFunc(m.Flags, func(f views.FlagRow) bool { return f.Key == m.Key && f.Enabled })
	for _, r := range rows {
		m.Orgs = append(m.Orgs, views.OrgFlagRow{Slug: r.Org.Slug, Name: r.Org.Name, Override: string(r.Override), Global: global, Effective: r.Effective})
	}
	return m, nil
}

// requireFlag is NotFound for a flag key that does not exist, checked
// before the input so an unknown flag is 404 whatever was posted.
func (s *Server) requireFlag(ctx context.Context, key string) error {
	all, err := s.flags.List(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(all, func(f flags.Flag) bool { return f.Key == key }) {
		return apperr.Detailf(apperr.NotFound, "no flag %q", key)
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// parseSwitch reads a global switch's new state (see boolWord).
func parseSwitch(v string) (bool, error) {
	if b, ok := boolWord(v); ok {
		return b, nil
	}
	return false, apperr.FieldError("enabled", "enabled must be true or false (or on/off)")
}

// fieldError reports whether err is a validation error to show beside a
// form field.
func fieldError(err error) (*apperr.Error, bool) {
	var e *apperr.Error
	if errors.As(err, &e) && e.Code == apperr.Invalid {
		return e, true
	}
	return nil, false
}
