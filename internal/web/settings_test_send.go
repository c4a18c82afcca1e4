package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/dispatch"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// settingsTestEmail sends a fresh look at today's briefing to the
// signed-in admin.
func (s *Server) settingsTestEmail(c echo.Context) error {
	return s.testSend(c, dispatch.ChannelEmail)
}

// settingsTestWebhook calls the saved webhook with a fresh look at today's
// briefing.
func (s *Server) settingsTestWebhook(c echo.Context) error {
	return s.testSend(c, dispatch.ChannelWebhook)
}

// testSend makes a fresh look at today's briefing (briefing.Store.SendTest)
// and sends it once, now, on channel, and shows the
// outcome beside the button: the block alone (and the delivery log out of
// band) for htmx, the settings page around it for a plain form post. A
// refusal (no briefing yet, no webhook saved) is shown there too, with its
// status from statusOf; an internal error goes to the error page.
func (s *Server) testSend(c echo.Context, channel string) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	stored, err := s.tenants.Fieldforce(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	var d dispatch.Delivery
	if to := testRecipient(c, stored, channel); to == "" {
		err = apperr.Errorf(apperr.Invalid, "No webhook URL is saved: add one under Delivery, save, then send a test.")
	} else {
		d, err = s.briefings.SendTest(ctx, s.deliver, s.sender, m.Org.ID, channel, to, s.now())
	}
	if apperr.Code(err) == apperr.Internal {
		return err
	}
	setRetryAfter(c, err)
	result, status := s.testResult(channel, d, err)
	if result.OK && channel == dispatch.ChannelEmail && s.cfg.SMTPURL == "" {
		result.ReadURL = testMessageURL(m.Org.Slug, d.ID)
	}
	if !isHTMX(c) {
		return s.renderSettings(c, status, stored, rejected{}, settingsAnswer{test: result})
	}
	log, err := s.deliveryLog(ctx, m.Org.ID, stored)
	if err != nil {
		return err
	}
	return s.render(c, status, views.TestSendAnswer(testSends(c, stored, result), log))
}

// testRecipient is who a test goes to: the admin's own address, or the
// saved webhook ("" when there is none).
func testRecipient(c echo.Context, stored tenants.FieldforceConfig, channel string) string {
	if channel == dispatch.ChannelWebhook {
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

// testResult words a test send's outcome; a refusal (err) keeps its status.
// The page is for admins, so a failure shows the SMTP reply or HTTP status.
func (s *Server) testResult(channel string, d dispatch.Delivery, err error) (views.TestSendResult, int) {
	r := views.TestSendResult{Channel: channel}
	switch {
	case err != nil:
		r.Message = apperr.Message(err)
		return r, statusOf(err)
	case d.State == dispatch.DeliverySent && channel == dispatch.ChannelEmail && s.cfg.SMTPURL == "":
		r.OK, r.Message = true, "Kept in the outbox for "+d.Recipient+": no mail server is configured here, so no mail leaves it."
	case d.State == dispatch.DeliverySent:
		r.OK, r.Message = true, "Sent to "+d.Recipient+"."
	default:
		r.Message = strings.TrimSuffix("Failed: "+views.Reply(d.LastCode, d.LastDetail), ": ")
	}
	return r, http.StatusOK
}

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

// deliveryLog is the org's latest deliveries, in its zone, codes and
// details included: the settings page is for admins.
func (s *Server) deliveryLog(ctx context.Context, orgID int64, stored tenants.FieldforceConfig) (views.DeliveryLog, error) {
	ds, err := s.deliver.RecentDeliveries(ctx, orgID, deliveryLogSize)
	if err != nil {
		return views.DeliveryLog{}, err
	}
	st := orgState{flags.BriefingState{FieldforceConfig: stored}}
	log := views.DeliveryLog{Zone: st.zoneName()}
	for _, d := range ds {
		log.Rows = append(log.Rows, deliveryRow(d, st.loc(), true, ""))
	}
	return log, nil
}
