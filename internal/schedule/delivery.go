package schedule

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"fieldbrief/internal/text"
)

// Delivery limits; an address's is text.MaxAddressLen.
const (
	MaxRecipients     = 20
	MaxWebhookURLSize = 2048
)

// How late a scheduled briefing may still be sent (delivery.send_within).
const (
	DefaultSendWithin = 3 * time.Hour
	MinSendWithin     = 5 * time.Minute
	MaxSendWithin     = 24 * time.Hour
)

// DeliveryConfig is who receives an org's briefing once it is generated.
// Absent (nil) means nothing is sent; the briefing is still readable in the app.
type DeliveryConfig struct {
	Email   *EmailDelivery   `json:"email,omitempty"`
	Webhook *WebhookDelivery `json:"webhook,omitempty"`
	// SendWithin is how long after its scheduled minute a scheduled briefing
	// may still be sent, in its canonical spelling ("3h", "1h30m", "45m");
	// "" means DefaultSendWithin. A briefing fired later (a schedule first
	// saved after today's time, a worker that was down) is made and kept,
	// its deliveries recorded as skipped (docs/guarantees.md, "Late
	// briefings").
	SendWithin string `json:"send_within,omitempty"`
	// Updates, when false, stops the technicians' "changes to your day"
	// messages and the briefing.updated webhook; absent means true.
	Updates *bool `json:"updates,omitempty"`
}

// Within is how late a scheduled briefing may still be sent: SendWithin,
// or DefaultSendWithin for a nil config or an empty SendWithin.
func (d *DeliveryConfig) Within() time.Duration {
	if d == nil || d.SendWithin == "" {
		return DefaultSendWithin
	}
	w, err := time.ParseDuration(d.SendWithin)
	if err != nil {
		return DefaultSendWithin // unreachable for a validated config
	}
	return w
}

// UpdatesOn reports whether changes after sending are sent on (delivery.updates,
// default true); false for a nil config, which sends nothing at all.
func (d *DeliveryConfig) UpdatesOn() bool {
	return d != nil && (d.Updates == nil || *d.Updates)
}

// FormatWithin spells a send_within duration canonically: whole hours and
// minutes, "3h", "1h30m", "45m".
func FormatWithin(w time.Duration) string {
	h, m := int(w/time.Hour), int(w%time.Hour/time.Minute)
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}

// EmailDelivery mails the briefing to fixed addresses and, with Technicians,
// each technician their own day. To holds bare addresses ("a@b.example"):
// display names are dropped on save, as the message names the org anyway
// and a bare address is what duplicates and unsubscribes are matched on.
type EmailDelivery struct {
	To          []string `json:"to,omitempty"`
	Technicians bool     `json:"technicians,omitempty"`
}

// WebhookDelivery posts the briefing to URL. Only its syntax is checked
// here; which hosts it may reach is a network policy, decided where the
// environment is known (on save, and again when connecting).
type WebhookDelivery struct {
	URL string `json:"url"`
}

// decodeDelivery reads the delivery member; nil when absent.
func (v *validator) decodeDelivery(raw json.RawMessage) *DeliveryConfig {
	if raw == nil {
		return nil
	}
	m, ok := v.object("delivery", raw, "email", "webhook", "send_within", "updates")
	if !ok {
		return nil
	}
	d := &DeliveryConfig{}
	v.value("delivery.send_within", m["send_within"], &d.SendWithin, `must be a duration such as "3h" or "90m"`)
	if m["updates"] != nil {
		d.Updates = new(bool)
		v.value("delivery.updates", m["updates"], d.Updates, "must be true or false")
	}
	if m["email"] != nil {
		d.Email = v.decodeEmail(m["email"])
	}
	if m["webhook"] != nil {
		if w, ok := v.object("delivery.webhook", m["webhook"], "url"); ok {
			d.Webhook = &WebhookDelivery{}
			if w["url"] == nil {
				v.add("delivery.webhook.url", CodeRequired, "is required")
			}
			v.value("delivery.webhook.url", w["url"], &d.Webhook.URL, "must be a string such as \"https://hooks.example.com/fieldbrief\"")
		}
	}
	return d
}

func (v *validator) decodeEmail(raw json.RawMessage) *EmailDelivery {
	m, ok := v.object("delivery.email", raw, "to", "technicians")
	if !ok {
		return nil
	}
	e := &EmailDelivery{}
	v.value("delivery.email.technicians", m["technicians"], &e.Technicians, "must be true or false")
	if m["to"] == nil {
		return e
	}
	var items []json.RawMessage
	v.value("delivery.email.to", m["to"], &items, `must be a list of addresses such as ["dispatch@example.com"]`)
	if len(items) > MaxRecipients {
		// Checked before the items, so a huge list costs one pass, not one parse per item.
		v.addError(FieldError{Field: "delivery.email.to", Code: CodeAddressesTooMany, Count: len(items),
			Message: fmt.Sprintf("at most %d addresses; found %d", MaxRecipients, len(items))})
		return e
	}
	e.To = make([]string, len(items))
	for i, item := range items {
		v.value(recipientField(i), item, &e.To[i], `must be an address such as "dispatch@example.com"`)
	}
	return e
}

func recipientField(i int) string {
	return fmt.Sprintf("delivery.email.to[%d]", i)
}

// delivery validates the values of d and returns its canonical form: bare
// addresses, "to" left out when empty, and an empty delivery object dropped
// (it sends nothing, exactly like an absent one).
func (v *validator) delivery(d *DeliveryConfig) *DeliveryConfig {
	if d == nil {
		return nil
	}
	out := &DeliveryConfig{Updates: d.Updates}
	if d.SendWithin != "" && !v.has("delivery.send_within") {
		out.SendWithin = v.sendWithin(d.SendWithin)
	}
	if e := d.Email; e != nil {
		out.Email = &EmailDelivery{Technicians: e.Technicians, To: v.recipients(e.To)}
		if len(e.To) == 0 && !e.Technicians && !v.has("delivery.email.to") && !v.has("delivery.email.technicians") {
			v.add("delivery.email.to", CodeAddressesRequired, "add at least one address, or send each technician their own day")
		}
	}
	if w := d.Webhook; w != nil && !v.has("delivery.webhook.url") {
		if w.URL == "" {
			v.add("delivery.webhook.url", CodeRequired, "is required")
		} else if msg := webhookURLProblem(w.URL); msg != "" {
			v.add("delivery.webhook.url", CodeWebhookURL, "%s", msg)
		}
		out.Webhook = &WebhookDelivery{URL: w.URL}
	}
	if out.Email == nil && out.Webhook == nil && out.SendWithin == "" && out.Updates == nil {
		return nil
	}
	return out
}

// sendWithin checks a delivery.send_within value and returns its canonical
// spelling.
func (v *validator) sendWithin(s string) string {
	w, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		v.add("delivery.send_within", CodeSendWithin, "%q is not a duration such as \"3h\" or \"90m\"", s)
	case w%time.Minute != 0 || w < MinSendWithin || w > MaxSendWithin:
		v.add("delivery.send_within", CodeSendWithin, "must be whole minutes between %s and %s, such as \"3h\"",
			FormatWithin(MinSendWithin), FormatWithin(MaxSendWithin))
	default:
		return FormatWithin(w)
	}
	return ""
}

// recipients checks each address and returns them bare; nil when none.
func (v *validator) recipients(to []string) []string {
	if v.has("delivery.email.to") || len(to) == 0 {
		return nil
	}
	seen := make(map[string]int, len(to))
	out := make([]string, 0, len(to))
	for i, s := range to {
		field := recipientField(i)
		if v.has(field) {
			continue
		}
		addr, code, msg := parseRecipient(s)
		if msg != "" {
			v.add(field, code, "%s", msg)
			continue
		}
		key := strings.ToLower(addr)
		if j, dup := seen[key]; dup {
			v.add(field, CodeAddressRepeated, "%q is already listed (address %d)", addr, j+1)
			continue
		}
		seen[key] = i
		out = append(out, addr)
	}
	return out
}

// parseRecipient returns the bare address of s (text.ParseRecipient: a
// display name is dropped; never an IP literal or an internal or dotless
// domain), or why it is not one.
//
// The code is CodeAddressInvalid, or for an address at a domain we never
// send to, text's own (CodeAddressIPLiteral, CodeAddressDotless,
// CodeAddressInternal), so pages can word each.
func parseRecipient(s string) (addr, code, problem string) {
	addr, err := text.ParseRecipient(s)
	switch code := text.AddressCode(err); {
	case err == nil:
		return addr, "", ""
	case errors.Is(err, text.ErrNotAnAddress):
		return "", CodeAddressInvalid, fmt.Sprintf("%q is not an email address such as dispatch@example.com", s)
	case code == CodeAddressIPLiteral || code == CodeAddressDotless || code == CodeAddressInternal:
		return "", code, fmt.Sprintf("%q: %s", s, err)
	case errors.Is(err, text.ErrAddressQuoted):
		return "", CodeAddressInvalid, fmt.Sprintf("%q: %s", s, err)
	}
	return "", CodeAddressInvalid, err.Error() // empty, or too long
}

// webhookURLProblem says what is wrong with a non-empty webhook URL's
// syntax, "" if nothing. http is accepted here; the network policy decides
// whether it may be used (WEBHOOK_ALLOW_PRIVATE_NETWORKS).
func webhookURLProblem(raw string) string {
	switch {
	case len(raw) > MaxWebhookURLSize:
		return fmt.Sprintf("is too long (at most %d characters)", MaxWebhookURLSize)
	case strings.TrimSpace(raw) != raw:
		return "must not start or end with spaces"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "is not a valid URL; use one such as https://hooks.example.com/fieldbrief"
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return "must start with https://"
	case u.User != nil:
		return "must not contain a user name or password; receivers check the signature instead"
	case u.Host == "" || u.Hostname() == "":
		return "must name a host, as in https://hooks.example.com/fieldbrief"
	case !text.URLPortOK(u.Host):
		return "must have a port from 1 to 65535, or none for the usual one (443 for https)"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "must not contain a #fragment (it is never sent)"
	}
	return ""
}
