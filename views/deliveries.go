package views

import "strings"

// TestSends is the settings page's "send a test" block: one button per
// channel, each with its outcome beside it after a send.
type TestSends struct {
	Base       string // "/orgs/{slug}/settings/fieldforce"
	CSRF       string
	Email      string // the signed-in admin's own address
	WebhookURL string // the saved webhook, "" when none
	Result     TestSendResult
}

// TestSendResult is the outcome of one test send, shown beside its button.
type TestSendResult struct {
	Channel string // "email" or "webhook": which button it belongs to; "" before any send
	OK      bool
	Message string // "Sent to …", "Failed: 550 …", or why nothing was sent
	ReadURL string // where the admin reads the message kept in the outbox; "" when it was sent
}

// For reports whether the result belongs to the channel's button.
func (r TestSendResult) For(channel string) bool { return r.Channel == channel && r.Message != "" }

// DeliveryLog is the settings page's list of the org's latest deliveries,
// test sends included. The page is for admins, so codes and details show.
type DeliveryLog struct {
	Zone   string // the zone the times are in, as people know it ("Central Time (Chicago)")
	ZoneID string // its IANA id, in small print
	Rows   []DeliveryRow
	// History says how long deliveries are kept and where they start
	// (docs/operations.md, "History retention"); "" says nothing.
	History string
}

// DeliveryRow is one delivery: a recipient of one revision of a briefing.
// Code, Detail and the attempts' codes are for admins only: the web leaves
// them empty for members.
type DeliveryRow struct {
	ID        int64
	At        string // when it was last updated, in the org's zone
	Date      string // the briefing's date
	Revision  int
	Channel   string // email | webhook
	Audience  string // dispatcher | technician | webhook | test
	Update    string // "" for the briefing itself; for a technician's update: "Update: 2 jobs changed"
	Recipient string
	State     string // pending | sent | failed | skipped
	Attempts  int
	Code      string
	Detail    string
	Note      string // a skipped delivery's reason, for everyone: "made 21:35, 15 h after 06:30 — not sent"
	History   []DeliveryAttemptRow
	ResendURL string // admins, on a failed delivery that can be sent again
}

// DeliveryAttemptRow is one try at a delivery.
type DeliveryAttemptRow struct {
	At       string
	Outcome  string // sent | retry | failed
	Code     string // admins only
	Detail   string // admins only
	Duration string
	Worker   string // admins only
}

// audienceLabel says who a delivery was for.
func audienceLabel(audience string) string {
	if audience == "" {
		return ""
	}
	return strings.ToUpper(audience[:1]) + audience[1:]
}

// Reply is an SMTP reply or HTTP answer as admins read it: "550 mailbox
// unavailable".
func Reply(code, detail string) string {
	return strings.TrimSpace(code + " " + detail)
}

// deliveryStateID is the catalog id of a delivery's state in words: a
// pending delivery that was tried already is being retried.
func deliveryStateID(state string, attempts int) string {
	switch {
	case state == "sent" || state == "failed" || state == "skipped":
		return "bsettings.log.state." + state
	case attempts > 0:
		return "bsettings.log.state.retrying"
	}
	return "bsettings.log.state.pending"
}
