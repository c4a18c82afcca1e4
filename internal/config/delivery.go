package config

import (
	"errors"
	"strings"

	"fieldbrief/internal/transport"
)

// Delivery reads and checks SMTP_URL, MAIL_FROM, BASE_URL,
// WEBHOOK_ALLOW_PRIVATE_NETWORKS and the daily cap's MAIL_DAILY_CAP_PER_ADDRESS
// and MAIL_DAILY_CAP_MIN, for both processes. BaseURL stays ""
// when unset: the web derives it from its listen address (BaseURLFor), the
// worker takes transport.DefaultBaseURL.
func Delivery(getenv func(string) string) (transport.Settings, error) {
	s := transport.Settings{
		SMTPURL:  getenv("SMTP_URL"),
		MailFrom: transport.DefaultMailFrom,
		BaseURL:  strings.TrimSuffix(getenv("BASE_URL"), "/"),
	}
	if v := getenv("MAIL_FROM"); v != "" {
		s.MailFrom = strings.TrimSpace(v)
	}
	var errs []error
	s.AllowPrivateWebhooks = envBool(getenv, "WEBHOOK_ALLOW_PRIVATE_NETWORKS", false, &errs)
	s.DailyCap = transport.DailyCap{
		PerAddress: envInt(getenv, "MAIL_DAILY_CAP_PER_ADDRESS", transport.DefaultDailyCap.PerAddress, &errs),
		Min:        envInt(getenv, "MAIL_DAILY_CAP_MIN", transport.DefaultDailyCap.Min, &errs),
	}
	return s, errors.Join(append(errs, s.Check())...)
}
