package web

import (
	"fmt"
	"regexp"
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
// this file is the one place that turns them into sentences for people.

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

var (
	jsonSyntaxAt = regexp.MustCompile(`^invalid JSON at (line \d+, column \d+)`)
	dataAfter    = regexp.MustCompile(`after the JSON document at (line \d+, column \d+)`)
	dayItem      = regexp.MustCompile(`^briefing\.days\[\d+\]$`)
	addrItem     = regexp.MustCompile(`^delivery\.email\.to\[(\d+)\]$`)
)

// plainMessage is one problem in words.
func plainMessage(fe schedule.FieldError, zone string) string {
	msg, path := fe.Message, fe.Field
	key := path[strings.LastIndexAny(path, ".")+1:]
	switch {
	case msg == "unknown field":
		return fmt.Sprintf("Remove %q: it is not a setting we know.", key)
	case msg == "is repeated":
		return fmt.Sprintf("%q appears twice: keep one.", key)
	case msg == "must be a JSON object" && path == "":
		return "The document must be one JSON object, starting with { and ending with }."
	case msg == "must be a JSON object":
		return fmt.Sprintf("%q must be an object, written between { and }.", key)
	}
	switch {
	case path == "":
		return documentMessage(msg)
	case path == "briefing":
		return `Add a "briefing" section with a time zone and a time.`
	case path == "briefing.timezone":
		switch {
		case strings.HasPrefix(msg, "must be"):
			return `The time zone must be a name in quotes, such as "Europe/Paris".`
		case strings.TrimSpace(zone) == "":
			return "Choose a time zone."
		}
		return fmt.Sprintf("We don't know the time zone %q. Search for a city and pick its zone, or use a name such as Europe/Paris.", zone)
	case path == "briefing.schedule_local_time":
		if msg == "schedule time is required" {
			return "Enter a time, such as 08:00."
		}
		return "Choose a time between 00:00 and 23:59, such as 08:00."
	case path == "briefing.days" && msg == "choose at least one day":
		return "Choose at least one day."
	case path == "briefing.days" && strings.HasPrefix(msg, "list each day at most once"):
		return "A week has 7 days: list each day at most once."
	case path == "briefing.days" || dayItem.MatchString(path):
		return "List the days as mon, tue, wed, thu, fri, sat or sun, each at most once."
	case path == "briefing.enabled":
		return "Whether briefings run must be true or false (true: running, false: paused)."
	case path == "delivery.email.technicians":
		return "Sending each technician their own day must be true or false."
	case path == "delivery.webhook.url" && msg == "is required":
		return "Enter the webhook URL, such as https://hooks.example.com/fieldbrief."
	case path == "delivery.webhook.url" && (strings.HasPrefix(msg, "is ") || strings.HasPrefix(msg, "must ")):
		return sentence("The webhook URL " + msg)
	case path == "delivery.email.to":
		if strings.HasPrefix(msg, "must be") {
			return `The email list must be addresses in quotes, such as ["dispatch@example.com"].`
		}
		return sentence(strings.Replace(msg, "at most", "Send to at most", 1))
	}
	if m := addrItem.FindStringSubmatch(path); m != nil {
		if strings.HasPrefix(msg, "must be") {
			return `Each address must be in quotes, such as "dispatch@example.com".`
		}
		return sentence(msg)
	}
	return sentence(msg)
}

// documentMessage explains a document that is not one JSON object, with
// the line and column of a syntax error and without encoding/json's words.
func documentMessage(msg string) string {
	switch {
	case msg == "the document is empty":
		return `The document is empty: it needs at least a "briefing" with a time zone and a time.`
	case strings.Contains(msg, "ends too early"):
		return "This isn't valid JSON: it ends too early. Look for a missing } or a missing closing quote."
	}
	if m := jsonSyntaxAt.FindStringSubmatch(msg); m != nil {
		return "This isn't valid JSON: look at " + m[1] + " (a missing or extra comma, quote or bracket)."
	}
	if m := dataAfter.FindStringSubmatch(msg); m != nil {
		return "There is something after the end of the document, at " + m[1] + ": remove it."
	}
	return "This isn't valid JSON."
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
