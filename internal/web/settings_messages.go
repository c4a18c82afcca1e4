package web

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// The settings page says what is wrong in words an admin uses, in the
// reader's language, beside the field (docs/web.md, "The schedule
// editor"; docs/i18n.md): never a JSON path and never Go's or
// encoding/json's error text. schedule.ParseConfig's messages stay as they
// are for the JSON API, which names fields by path and stays English
// (developers' convention); this file is the one place that turns their
// codes into sentences for people.

// plainMessages are a validation error's problems as sentences in l's
// language, each with the form field it goes beside (formField) and its
// JSON path kept for the markup only. zone is the time zone as typed, for
// "We don't know …".
func plainMessages(l *i18n.Localizer, ve *schedule.ValidationError, zone string) []views.FieldMessage {
	if ve == nil {
		return nil
	}
	out := make([]views.FieldMessage, 0, len(ve.Errors))
	for _, fe := range ve.Errors {
		out = append(out, views.FieldMessage{Field: fe.Field, Message: plainMessage(l, fe, zone)})
	}
	return out
}

// plainCodes are the codes whose message needs nothing but the code.
var plainCodes = map[string]string{
	schedule.CodeDocumentEmpty:  "bsettings.msg.document_empty",
	schedule.CodeJSONTruncated:  "bsettings.msg.json_truncated",
	schedule.CodeJSONInvalid:    "bsettings.msg.json_invalid",
	schedule.CodeTimeRequired:   "bsettings.msg.time_required",
	schedule.CodeTimeFormat:     "bsettings.msg.time_format",
	schedule.CodeDaysEmpty:      "bsettings.msg.days_empty",
	schedule.CodeDaysTooMany:    "bsettings.msg.days_too_many",
	schedule.CodeDayUnknown:     "bsettings.msg.days",
	schedule.CodeDayRepeated:    "bsettings.msg.days",
	schedule.CodeWebhookURL:     "bsettings.msg.webhook_url",
	schedule.CodeWebhookRefused: "bsettings.msg.webhook_refused",
	// An address that is not one, or listed twice: the English message
	// names it ("… is already listed (address 2)"), see precise.
	schedule.CodeAddressInvalid:    "bsettings.msg.address_invalid",
	schedule.CodeAddressRepeated:   "bsettings.msg.address_repeated",
	schedule.CodeAddressesRequired: "bsettings.msg.addresses_required",
}

// precise are the codes whose schedule message says more than the code
// (which rule of a webhook URL, which address): it is written for people
// already, in English, so English readers get it; the others get the
// code's message in their language, which names the rules together.
var precise = map[string]bool{
	schedule.CodeWebhookURL: true, schedule.CodeWebhookRefused: true,
	schedule.CodeAddressInvalid: true, schedule.CodeAddressRepeated: true, schedule.CodeAddressesRequired: true,
}

// plainMessage is one problem in l's words, by its code (schedule.Code…).
func plainMessage(l *i18n.Localizer, fe schedule.FieldError, zone string) string {
	path := fe.Field
	key := path[strings.LastIndexAny(path, ".")+1:]
	if precise[fe.Code] && l.Language() == "en" && fe.Message != "" {
		if fe.Code == schedule.CodeWebhookURL {
			return sentence("The webhook URL " + fe.Message)
		}
		return sentence(fe.Message)
	}
	if id, ok := plainCodes[fe.Code]; ok {
		return l.T(id)
	}
	switch fe.Code {
	case schedule.CodeUnknownField:
		return l.Tf("bsettings.msg.unknown_field", map[string]any{"Field": key})
	case schedule.CodeRepeatedField:
		return l.Tf("bsettings.msg.repeated_field", map[string]any{"Field": key})
	case schedule.CodeObjectExpected:
		if path == "" {
			return l.T("bsettings.msg.document_object")
		}
		return l.Tf("bsettings.msg.object_expected", map[string]any{"Field": key})
	case schedule.CodeJSONSyntax:
		return l.Tf("bsettings.msg.json_syntax", map[string]any{"At": fe.At})
	case schedule.CodeJSONTrailing:
		return l.Tf("bsettings.msg.json_trailing", map[string]any{"At": fe.At})
	case schedule.CodeRequired:
		if path == "delivery.webhook.url" {
			return l.T("bsettings.msg.webhook_required")
		}
		return l.T("bsettings.msg.briefing_required")
	case schedule.CodeWrongType:
		return wrongType(l, fe)
	case schedule.CodeZoneUnknown:
		if strings.TrimSpace(zone) == "" {
			return l.T("bsettings.msg.zone_missing")
		}
		return l.Tf("bsettings.msg.zone_unknown", map[string]any{"Zone": zone})
	case schedule.CodeAddressesTooMany:
		return l.Tn("bsettings.msg.addresses_too_many", schedule.MaxRecipients, map[string]any{"Found": fe.Count})
	case schedule.CodeSendWithin:
		return l.Tf("bsettings.msg.send_within", map[string]any{
			"Min": schedule.FormatWithin(schedule.MinSendWithin), "Max": schedule.FormatWithin(schedule.MaxSendWithin)})
	}
	// A code this page does not know yet: the schedule's own words.
	return sentence(fe.Message)
}

// wrongType says which kind of value a field takes.
func wrongType(l *i18n.Localizer, fe schedule.FieldError) string {
	switch path := fe.Field; {
	case path == "briefing.timezone":
		return l.T("bsettings.msg.type_timezone")
	case path == "briefing.schedule_local_time":
		return l.T("bsettings.msg.time_format")
	case strings.HasPrefix(path, "briefing.days"):
		return l.T("bsettings.msg.days")
	case path == "briefing.enabled":
		return l.T("bsettings.msg.type_enabled")
	case path == "delivery.email.technicians":
		return l.T("bsettings.msg.type_technicians")
	case path == "delivery.webhook.url":
		return plainMessage(l, schedule.FieldError{Field: path, Code: schedule.CodeWebhookURL, Message: fe.Message}, "")
	case path == "delivery.send_within":
		return l.T("bsettings.msg.type_send_within")
	case path == "delivery.updates":
		return l.T("bsettings.msg.type_updates")
	case path == "delivery.email.to":
		return l.T("bsettings.msg.type_to")
	case strings.HasPrefix(path, "delivery.email.to["):
		return l.T("bsettings.msg.type_address")
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
