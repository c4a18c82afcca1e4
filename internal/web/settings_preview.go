package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// Preview sizes: the runs listed, and how far ahead DST problems are looked for.
const (
	previewRuns    = 7
	previewDSTDays = 366
)

// settingsPreview answers the form's htmx request with the next runs of
// the schedule as currently typed (nothing is saved). Invalid values are
// answered with 200 and their messages, because htmx swaps only 2xx
// responses: the fragment is the feedback, so the preview never shows the
// runs of values no longer typed. The zone hint and the one-line summary
// come along out of band, and the whole document the form describes comes
// in the "config-document" event for the JSON editor (static/editor.js).
func (s *Server) settingsPreview(c echo.Context) error {
	in, err := scheduleInputFrom(c, s.clockLocale(c), s.now())
	if err != nil {
		return err
	}
	if in.delivery != nil { // the settings form, not a client previewing the schedule alone
		if err := triggerEvent(c, "config-document", map[string]string{"value": indentJSON(in.settingsDocument(nil))}); err != nil {
			return err
		}
	}
	ctx, orgID, l := c.Request().Context(), currentMembership(c).Org.ID, localizer(c)
	if in.delivery == nil { // what is sent, and how late, is the stored delivery's
		stored, err := s.tenants.Fieldforce(ctx, orgID)
		if err != nil {
			return err
		}
		in.delivery = storedDelivery(stored.Config.Delivery)
	}
	pv, err := s.preview(ctx, l, orgID, in.document(), in.timezone, in.delivery.sends())
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.PreviewAnswer(views.Page{I18n: l}, pv, s.zoneHint(l, in.timezone)))
}

// settingsPreviewJSON answers the JSON editor's htmx request: the preview
// of the document as typed and its problems beside the editor, in plain
// words. A valid document also fills the form, through the "config-form"
// event (static/editor.js); an invalid one leaves the form as it is.
func (s *Server) settingsPreviewJSON(c echo.Context) error {
	raw := []byte(c.FormValue("config_json"))
	in, _ := jsonInput(raw)
	cfg, _, err := schedule.ParseConfig(raw)
	var ve *schedule.ValidationError
	if err != nil && !errors.As(err, &ve) {
		return err
	}
	l := localizer(c)
	msgs := plainMessages(l, ve, in.timezone)
	pv := views.Preview{Errors: msgs}
	var hint views.ZoneHint
	if ve == nil {
		if pv, err = s.preview(c.Request().Context(), l, currentMembership(c).Org.ID, raw, in.timezone, sends(cfg.Delivery)); err != nil {
			return err
		}
		hint = s.zoneHint(l, in.timezone)
		if err := triggerEvent(c, "config-form", formValues(in, s.clockLocale(c))); err != nil {
			return err
		}
	}
	return s.render(c, http.StatusOK, views.JSONPreviewAnswer(views.Page{I18n: l}, pv, hint, msgs))
}

// formValues are the form's fields for a document, by input name.
func formValues(in scheduleInput, l locale.Locale) map[string]any {
	v := map[string]any{
		"timezone":            in.timezone,
		"schedule_local_time": shownClock(l, in.localTime),
		"days":                in.days,
		"enabled":             in.enabledText(),
	}
	if d := in.delivery; d != nil {
		v["delivery_email_to"] = d.to
		v["delivery_email_technicians"] = d.technicians == true
		v["delivery_webhook_url"] = d.webhookURL
		v["delivery_send_within"] = d.sendWithin
		v["delivery_updates"] = d.updates
	}
	return v
}

// triggerEvent asks htmx to fire an event with detail on the requesting
// element (the HX-Trigger header). A header is bytes read as Latin-1 by
// browsers, so the JSON is written in ASCII, other characters escaped.
func triggerEvent(c echo.Context, name string, detail any) error {
	b, err := json.Marshal(map[string]any{name: detail})
	if err != nil {
		return fmt.Errorf("encode %s event: %w", name, err)
	}
	var sb strings.Builder
	for _, r := range string(b) {
		if r < 0x80 {
			sb.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&sb, `\u%04x`, u)
		}
	}
	c.Response().Header().Set("HX-Trigger", sb.String())
	return nil
}

// preview lists the firings the tick will make with a config document (the
// page's "next runs": schedule.Upcoming, counting the org's scheduled dates
// as the tick does; docs/scheduling.md, "The next run"), today's catch-up
// firing first when today's minute has passed, and the DST problems of the
// next year; zone is
// the time zone as typed, for the messages, and sends whether the settings
// deliver anything (the document may hold the schedule alone). A paused
// schedule shows the runs it makes once resumed. Everything is in l's words
// and clock.
func (s *Server) preview(ctx context.Context, l *i18n.Localizer, orgID int64, raw []byte, zone string, sends bool) (views.Preview, error) {
	cfg, sched, err := schedule.ParseConfig(raw)
	var ve *schedule.ValidationError
	if errors.As(err, &ve) {
		return views.Preview{Errors: plainMessages(l, ve, zone)}, nil
	}
	if err != nil {
		return views.Preview{Errors: []views.FieldMessage{{Message: l.T("bsettings.preview.unreadable")}}}, nil
	}
	now := s.now()
	lo := l.Locale()
	p := views.Preview{Zone: lo.ZoneName(sched.Zone.Name, now), ZoneID: sched.Zone.Name, Paused: !sched.Enabled}
	sched.Enabled = true
	runs, err := s.upcoming(ctx, orgID, now, sched, previewRuns)
	if err != nil {
		return p, err
	}
	within := cfg.Delivery.Within()
	for i, r := range runs {
		at := r.At.In(sched.Zone.Loc)
		row := views.PreviewRun{
			Date:   lo.Date(r.Local),
			Local:  lo.Time(at),
			UTC:    utcTime(l, r.At, r.Local),
			Offset: schedule.OffsetLabel(at),
			Flag:   string(r.Note),
			Note:   runNote(l, r),
		}
		if i == 0 {
			p.Next = dateTime(l, at)
			if r.CatchUp() {
				p.CatchUp = catchUpWords(l, r, runs[1:], within, sends)
				p.Kept = sends && schedule.SentLate(r.Late(), within)
				row.Late = lateBadge(l, r, p.Kept)
			}
		}
		p.Runs = append(p.Runs, row)
	}
	for _, r := range schedule.DSTWarnings(now, sched, previewDSTDays) {
		p.Warnings = append(p.Warnings, dstWarning(l, r, p.Zone))
	}
	return p, nil
}

// utcTime is a run's instant in UTC in l's clock ("1:00 PM UTC"), with its
// date when that is not the run's local date.
func utcTime(l *i18n.Localizer, at, local time.Time) string {
	u, lo := at.UTC(), l.Locale()
	if schedule.DateOf(u) != schedule.DateOf(local) {
		return l.Tf("bsettings.date_time", map[string]any{"Date": lo.Date(u), "Time": lo.Time(u)}) + " UTC"
	}
	return lo.Time(u) + " UTC"
}
