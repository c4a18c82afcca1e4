package web

import (
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/dispatch"
	"fieldbrief/internal/schedule"
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

// deliveryRow is the view of a delivery with its times in loc. Codes,
// details, worker ids and the attempt history are for admins; members see
// who and the state in words, and of a webhook only its host (its path may
// hold a token). resendBase,
// when set, is where the briefing page's "Send again" posts, offered to
// admins on a failed scheduled delivery.
func deliveryRow(d dispatch.Delivery, loc *time.Location, admin bool, resendBase string) views.DeliveryRow {
	r := views.DeliveryRow{
		ID: d.ID, At: clock(d.UpdatedAt, loc), Date: d.Date.String(), Revision: d.Revision,
		Channel: d.Channel, Audience: d.Audience, Recipient: d.Recipient, State: d.State, Attempts: d.Attempts,
		Update: updateLabel(d),
	}
	if d.State == dispatch.DeliverySkipped {
		// Why it was not sent is for everyone who sees the delivery
		// (docs/guarantees.md, "Late briefings").
		r.Note, r.Code = d.LastDetail, d.LastCode
	}
	if !admin {
		if d.Channel == dispatch.ChannelWebhook {
			r.Recipient = webhookHost(d.Recipient)
		}
		return r
	}
	r.Code, r.Detail = d.LastCode, d.LastDetail
	for _, a := range d.History {
		r.History = append(r.History, views.DeliveryAttemptRow{At: clock(a.At, loc), Outcome: a.Outcome, Duration: took(a.Duration),
			Code: a.Code, Detail: a.Detail, Worker: a.Worker})
	}
	if resendBase != "" && d.State == dispatch.DeliveryFailed && d.Audience != dispatch.AudienceTest {
		r.ResendURL = resendBase + strconv.FormatInt(d.ID, 10) + "/resend"
	}
	return r
}

// webhookHost is a webhook URL as members see it: scheme and host.
func webhookHost(raw string) string {
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

// updateLabel names a technician's update on the briefing page: "Update:
// 2 jobs changed"; "" for a delivery of the briefing itself.
func updateLabel(d dispatch.Delivery) string {
	switch {
	case d.UpdateID == 0:
		return ""
	case d.UpdateJobs == 1:
		return "Update: 1 job changed"
	}
	return "Update: " + strconv.Itoa(d.UpdateJobs) + " jobs changed"
}
