package web

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// settingsTestEmail sends a fresh look at today's briefing to the
// signed-in admin.
func (s *Server) settingsTestEmail(c echo.Context) error {
	return s.testSend(c, delivery.ChannelEmail)
}

// settingsTestWebhook calls the saved webhook with a fresh look at today's
// briefing.
func (s *Server) settingsTestWebhook(c echo.Context) error {
	return s.testSend(c, delivery.ChannelWebhook)
}

// testSend makes a fresh look at today's briefing (briefing.Store.SendTest)
// and sends it once, now, on channel, and shows the
// outcome beside the button: the block alone (and the delivery log out of
// band) for htmx, the settings page around it for a plain form post. A
// refusal (no briefing yet, no webhook saved) is shown there too, with its
// status from httpkit.StatusOf; an internal error goes to the error page.
func (s *Server) testSend(c echo.Context, channel string) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	stored, err := s.tenants.Fieldforce(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	var d delivery.Delivery
	l := localizer(c)
	if to := testRecipient(c, stored, channel); to == "" {
		err = errNoWebhook
	} else {
		d, err = s.briefings.SendTest(ctx, s.deliver, s.sender, m.Org.ID, channel, to, s.now())
	}
	if apperr.Code(err) == apperr.Internal {
		return err
	}
	httpkit.SetRetryAfter(c, err)
	result, status := s.testResult(l, stored, channel, d, err)
	if result.OK && channel == delivery.ChannelEmail && s.cfg.SMTPURL == "" {
		result.ReadURL = testMessageURL(m.Org.Slug, d.ID)
	}
	if !isHTMX(c) {
		return s.renderSettings(c, status, stored, rejected{}, settingsAnswer{test: result})
	}
	log, err := s.deliveryLog(ctx, l, m.Org.ID, stored)
	if err != nil {
		return err
	}
	return s.render(c, status, views.TestSendAnswer(views.Page{I18n: l}, testSends(c, stored, result), log))
}

// testRecipient is who a test goes to: the admin's own address, or the
// saved webhook ("" when there is none).
func testRecipient(c echo.Context, stored tenants.FieldforceConfig, channel string) string {
	if channel == delivery.ChannelWebhook {
		return savedWebhook(stored)
	}
	u, _ := currentUser(c)
	return u.Email
}

// savedWebhook is the stored config's webhook URL, "" when none is usable.
func savedWebhook(stored tenants.FieldforceConfig) string {
	if stored.Err != nil || stored.Config.Delivery == nil || stored.Config.Delivery.Webhook == nil {
		return ""
	}
	return stored.Config.Delivery.Webhook.URL
}

// testResult words a test send's outcome in l's words; a refusal (err)
// keeps its status. The page is for admins, so a failure shows the SMTP
// reply or HTTP status. A refusal's message is the catalog's for its code
// where the page knows one (test sends: no briefing yet, too many sends).
func (s *Server) testResult(l *i18n.Localizer, stored tenants.FieldforceConfig, channel string, d delivery.Delivery, err error) (views.TestSendResult, int) {
	r := views.TestSendResult{Channel: channel}
	switch {
	case err != nil:
		r.Message = refusal(l, err)
		return r, httpkit.StatusOf(err)
	case d.State == delivery.DeliverySent && channel == delivery.ChannelEmail && s.cfg.SMTPURL == "":
		r.OK, r.Message = true, l.Tf("bsettings.test.kept", map[string]any{"To": d.Recipient})
	case d.State == delivery.DeliverySent:
		r.OK, r.Message = true, l.Tf("bsettings.test.sent", map[string]any{"To": d.Recipient})
	case d.LastCode == "" && d.LastDetail == "":
		r.Message = l.T("bsettings.test.failed_bare")
	default:
		r.Message = l.Tf("bsettings.test.failed", map[string]any{"Reply": views.Reply(d.LastCode, d.LastDetail)})
	}
	return r, http.StatusOK
}

// errNoWebhook refuses a test webhook while none is saved.
var errNoWebhook = apperr.Refuse(apperr.Invalid, "test_no_webhook", nil)

// testSends is the view of the test block.
func testSends(c echo.Context, stored tenants.FieldforceConfig, result views.TestSendResult) views.TestSends {
	u, _ := currentUser(c)
	t := views.TestSends{
		Base:       settingsURL(currentMembership(c).Org.Slug),
		Email:      u.Email,
		WebhookURL: savedWebhook(stored),
		Result:     result,
	}
	t.CSRF, _ = c.Get(ctxCSRF).(string)
	return t
}

// deliveryLogSize is how many deliveries the settings page lists.
const deliveryLogSize = 20

// deliveryLog is the org's latest deliveries, in its zone and l's words
// and clock, codes and details included: the settings page is for admins.
func (s *Server) deliveryLog(ctx context.Context, l *i18n.Localizer, orgID int64, stored tenants.FieldforceConfig) (views.DeliveryLog, error) {
	ds, err := s.deliver.RecentDeliveries(ctx, orgID, deliveryLogSize)
	if err != nil {
		return views.DeliveryLog{}, err
	}
	st := orgState{flags.BriefingState{FieldforceConfig: stored}}
	log := views.DeliveryLog{}
	log.Zone, log.ZoneID = st.zoneWords(l, s.now())
	if log.History, err = s.historyNote(ctx, l); err != nil {
		return views.DeliveryLog{}, err
	}
	for _, d := range ds {
		r := deliveryRow(l.Locale(), d, st.loc(), adminDeliveries, "")
		r.At = dateTime(l, d.UpdatedAt.In(st.loc()))
		r.Date = l.Locale().Date(d.Date.Time())
		r.Note = deliveryNote(l, d, r.Note, st.loc())
		if d.UpdateID != 0 {
			r.Update = l.Tn("bsettings.log.update", d.UpdateJobs, nil)
		}
		log.Rows = append(log.Rows, r)
	}
	return log, nil
}

// deliveryNote is a skipped delivery's reason in l's words: one over the
// daily cap from the catalog, a late one said from its briefing's firing
// (lateDetail), a technician's who asked not to receive day sheets with
// when, in loc; anything else as stored.
func deliveryNote(l *i18n.Localizer, d delivery.Delivery, stored string, loc *time.Location) string {
	switch {
	case stored == "":
		return ""
	case d.LastCode == delivery.SkippedDailyCap:
		return l.T("bsettings.log.skipped_daily_cap") // docs/delivery.md, "Daily cap"
	case d.LastCode == delivery.SkippedStopped: // docs/delivery.md, "Stopping day sheets"
		if at, err := time.Parse(time.RFC3339, stored); err == nil {
			return l.Tf("bsettings.log.skipped_stopped", map[string]any{"When": stamp(l.Locale(), at, loc)})
		}
	case d.LastCode == delivery.SkippedLate && !d.Fired.At.IsZero() && !d.Fired.For.IsZero():
		return lateDetail(l, d.Fired)
	case d.LastCode == delivery.SkippedLate && l.Language() != "en":
		// No firing recorded (an older row): its stored reason is English,
		// which another language's page does not show (docs/i18n.md).
		return l.T("bsettings.late.detail_unknown")
	}
	return stored
}
