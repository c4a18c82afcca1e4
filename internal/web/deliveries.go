package web

import (
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// deliveryResend sends a failed delivery of this org again and goes back
// to its briefing with a notice. Another org's delivery is NotFound, one
// that is not failed Conflict (Store.Resend decides both).
func (s *Server) deliveryResend(c echo.Context) error {
	m := currentMembership(c)
	date, err := schedule.ParseDate(c.Param("date"))
	id, idErr := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || idErr != nil {
		return apperr.Errorf(apperr.NotFound, "There is no such delivery.")
	}
	if err := s.deliver.Resend(c.Request().Context(), m.Org.ID, id, actor(c), s.now()); err != nil {
		return err
	}
	return redirect(c, briefingsURL(m.Org.Slug)+"/"+date.String()+"?notice=resending")
}

// deliveryAccess is what a reader sees of a delivery: the codes, details,
// worker ids and attempt history (admins and dispatchers), and a
// webhook's whole URL (admins alone: its path or query may hold a
// credential, docs/security.md "Access ends with its reason"; the others
// see its origin, and no detail text, which may quote the URL).
type deliveryAccess struct {
	details    bool
	webhookURL bool
}

// deliveryAccessOf is what m's role sees of deliveries.
func deliveryAccessOf(m tenants.Membership) deliveryAccess {
	return deliveryAccess{details: m.ReadsAll(), webhookURL: m.IsAdmin()}
}

// adminDeliveries is the settings page's delivery log: admins only.
var adminDeliveries = deliveryAccess{details: true, webhookURL: true}

// deliveryRow is the view of a delivery with its times in loc in lc's formats, as a
// reads it (deliveryAccess); members see who and the state in words.
// resendBase, when set, is where the briefing page's "Send again" posts,
// offered to admins on a failed scheduled delivery.
func deliveryRow(lc locale.Locale, d delivery.Delivery, loc *time.Location, a deliveryAccess, resendBase string) views.DeliveryRow {
	r := views.DeliveryRow{
		ID: d.ID, At: clock(lc, d.UpdatedAt, loc), Date: d.Date.String(), Revision: d.Revision,
		Channel: d.Channel, Audience: d.Audience, Recipient: d.Recipient, State: d.State, Attempts: d.Attempts,
	}
	hidden := d.Channel == delivery.ChannelWebhook && !a.webhookURL
	if hidden {
		r.Recipient = webhookOrigin(d.Recipient)
	}
	if d.State == delivery.DeliverySkipped {
		// Why it was not sent is for everyone who sees the delivery
		// (docs/guarantees.md, "Late briefings").
		r.Note, r.Code = d.LastDetail, d.LastCode
	}
	if !a.details {
		return r
	}
	r.Code = d.LastCode
	if !hidden {
		r.Detail = d.LastDetail
	}
	for _, at := range d.History {
		row := views.DeliveryAttemptRow{At: clock(lc, at.At, loc), Outcome: at.Outcome, Duration: took(at.Duration),
			Code: at.Code, Worker: at.Worker}
		if !hidden {
			row.Detail = at.Detail
		}
		r.History = append(r.History, row)
	}
	if resendBase != "" && d.State == delivery.DeliveryFailed && d.Audience != delivery.AudienceTest {
		r.ResendURL = resendBase + strconv.FormatInt(d.ID, 10) + "/resend"
	}
	return r
}

// webhookOrigin is a webhook URL as those who may not see it whole see
// it: scheme, host and port, never the path, query or user info.
func webhookOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "webhook"
	}
	return u.Scheme + "://" + u.Host
}

// took formats an attempt's duration: "120ms", "1.2s".
func took(d time.Duration) string {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}
