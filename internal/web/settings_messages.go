package web

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// The settings page says what is wrong in words an admin uses, beside the
// field (docs/architecture.md, "The schedule editor"): never a JSON path
// and never Go's or encoding/json's error text. schedule.ParseConfig's
// messages stay as they are for the JSON API, which names fields by path;
// this file is the one place that turns their codes into sentences for
// people.

// plainMessages are a validation error's problems as sentences, each with
// the form field it goes beside (formField) and its JSON path kept for the
// markup only. zone is the time zone as typed, for "We don't know …".
func plainMessages(ve *schedule.ValidationError, zone string) []views.FieldMessage {
	if ve == nil {
		return nil
	}
	out := make([]views.FieldMessage, 0, len(ve.Errors))
	for _, fe := range ve.Errors {
		out = append(out, views.FieldMessage{Field: fe.Field, Message: plainMessage(fe, zone)})
	}
	return out
}

// plainMessage is one problem in words, by its code (schedule.Code…).
func plainMessage(fe schedule.FieldError, zone string) string {
	path := fe.Field
	key := path[strings.LastIndexAny(path, ".")+1:]
	switch fe.Code {
	case schedule.CodeUnknownField:
		return fmt.Sprintf("Remove %q: it is not a setting we know.", key)
	case schedule.CodeRepeatedField:
		return fmt.Sprintf("%q appears twice: keep one.", key)
	case schedule.CodeObjectExpected:
		if path == "" {
			return "The document must be one JSON object, starting with { and ending with }."
		}
		return fmt.Sprintf("%q must be an object, written between { and }.", key)
	case schedule.CodeDocumentEmpty:
		return `The document is empty: it needs at least a "briefing" with a time zone and a time.`
	case schedule.CodeJSONTruncated:
		return "This isn't valid JSON: it ends too early. Look for a missing } or a missing closing quote."
	case schedule.CodeJSONSyntax:
		return "This isn't valid JSON: look at " + fe.At + " (a missing or extra comma, quote or bracket)."
	case schedule.CodeJSONTrailing:
		return "There is something after the end of the document, at " + fe.At + ": remove it."
	case schedule.CodeJSONInvalid:
		return "This isn't valid JSON."
	case schedule.CodeRequired:
		if path == "delivery.webhook.url" {
			return "Enter the webhook URL, such as https://hooks.example.com/fieldbrief."
		}
		return `Add a "briefing" section with a time zone and a time.`
	case schedule.CodeWrongType:
		return wrongType(fe)
	case schedule.CodeZoneUnknown:
		if strings.TrimSpace(zone) == "" {
			return "Choose a time zone."
		}
		return fmt.Sprintf("We don't know the time zone %q. Search for a city and pick its zone, or use a name such as Europe/Paris.", zone)
	case schedule.CodeTimeRequired:
		return "Enter a time, such as 08:00."
	case schedule.CodeTimeFormat:
		return "Choose a time between 00:00 and 23:59, such as 08:00."
	case schedule.CodeDaysEmpty:
		return "Choose at least one day."
	case schedule.CodeDaysTooMany:
		return "A week has 7 days: list each day at most once."
	case schedule.CodeDayUnknown, schedule.CodeDayRepeated:
		return "List the days as mon, tue, wed, thu, fri, sat or sun, each at most once."
	case schedule.CodeAddressesTooMany:
		return fmt.Sprintf("Send to at most %d addresses; found %d.", schedule.MaxRecipients, fe.Count)
	case schedule.CodeWebhookURL:
		return sentence("The webhook URL " + fe.Message)
	case schedule.CodeSendWithin:
		return fmt.Sprintf("Choose how late a briefing may still be sent as whole minutes between %s and %s, such as 3h or 90m.",
			schedule.FormatWithin(schedule.MinSendWithin), schedule.FormatWithin(schedule.MaxSendWithin))
	}
	// The other codes' messages (an address that is not one, the network
	// policy's refusal) are already said for people.
	return sentence(fe.Message)
}

// wrongType says which kind of value a field takes.
func wrongType(fe schedule.FieldError) string {
	switch path := fe.Field; {
	case path == "briefing.timezone":
		return `The time zone must be a name in quotes, such as "Europe/Paris".`
	case path == "briefing.schedule_local_time":
		return "Choose a time between 00:00 and 23:59, such as 08:00."
	case strings.HasPrefix(path, "briefing.days"):
		return "List the days as mon, tue, wed, thu, fri, sat or sun, each at most once."
	case path == "briefing.enabled":
		return "Whether briefings run must be true or false (true: running, false: paused)."
	case path == "delivery.email.technicians":
		return "Sending each technician their own day must be true or false."
	case path == "delivery.webhook.url":
		return sentence("The webhook URL " + fe.Message)
	case path == "delivery.send_within":
		return `How late a briefing may still be sent must be a duration in quotes, such as "3h".`
	case path == "delivery.updates":
		return "Sending technicians the changes to their day must be true or false."
	case path == "delivery.email.to":
		return `The email list must be addresses in quotes, such as ["dispatch@example.com"].`
	case strings.HasPrefix(path, "delivery.email.to["):
		return `Each address must be in quotes, such as "dispatch@example.com".`
	}
	return sentence(fe.Message)
}

// sentence capitalises a message and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
