package transport

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
)

// DefaultMailFrom is MAIL_FROM when unset.
const DefaultMailFrom = "fieldbrief <briefings@fieldbrief.localhost>"

// DefaultBaseURL is BASE_URL when unset: the web's default listen address,
// right for `make run` and wrong anywhere else, where operators set it.
const DefaultBaseURL = "http://localhost:8080"

// Settings are how both processes deliver (docs/delivery.md): the web for
// its test sends, the worker for the morning's run. internal/config reads
// them from the environment for both, so the two can't disagree.
type Settings struct {
	SMTPURL              string // SMTP_URL; "" keeps mail in the outbox
	MailFrom             string // MAIL_FROM
	BaseURL              string // BASE_URL, without a trailing slash; "" until defaulted
	AllowPrivateWebhooks bool   // WEBHOOK_ALLOW_PRIVATE_NETWORKS
	DailyCap             DailyCap
}

// DailyCap bounds the briefing and update emails one org sends per
// org-local day (docs/delivery.md, "Daily cap"): PerAddress times the
// addresses the org sends to (its active technicians with an email and
// its configured recipients), at least Min. An operator's setting, not an
// org's: the addresses are the tenant's choice, so the bound must not be.
type DailyCap struct {
	PerAddress int // MAIL_DAILY_CAP_PER_ADDRESS; 0 is DefaultDailyCap's
	Min        int // MAIL_DAILY_CAP_MIN; 0 is DefaultDailyCap's
}

// DefaultDailyCap: a briefing and four updates a day for every address,
// and at least 50 emails for a small org.
var DefaultDailyCap = DailyCap{PerAddress: 5, Min: 50}

// Of is the cap of an org that sends to addresses addresses.
func (c DailyCap) Of(addresses int) int {
	per, least := c.PerAddress, c.Min
	if per <= 0 {
		per = DefaultDailyCap.PerAddress
	}
	if least <= 0 {
		least = DefaultDailyCap.Min
	}
	// Saturated well below the counter's int4: a large setting means "no
	// cap", never an overflow that stops every email.
	const most = 1 << 30
	per, least = min(per, most), min(least, most)
	if addresses > 0 && per > most/addresses {
		return most
	}
	return min(max(least, per*addresses), most)
}

// Check validates settings however they were made. Empty MailFrom and
// BaseURL pass: hand-built settings (tests) get the defaults where used.
func (s Settings) Check() error {
	var errs []error
	if s.SMTPURL != "" {
		if _, err := ParseSMTPURL(s.SMTPURL); err != nil {
			errs = append(errs, err) // says SMTP_URL, and never quotes the password
		}
	}
	if s.MailFrom != "" {
		if _, err := mail.ParseAddress(s.MailFrom); err != nil {
			errs = append(errs, fmt.Errorf("MAIL_FROM must be an address such as %q: %w", DefaultMailFrom, err))
		}
	}
	if s.BaseURL != "" {
		if err := checkBaseURL(s.BaseURL); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkBaseURL requires an absolute http(s) URL without query or fragment,
// as links are built by appending paths to it.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("BASE_URL: %w", err)
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("BASE_URL must be an absolute http(s) URL such as https://fieldbrief.example.com, not %q", raw)
	case u.RawQuery != "" || u.Fragment != "" || strings.Contains(raw, "?") || strings.Contains(raw, "#"):
		return fmt.Errorf("BASE_URL must not have a query or fragment: %q", raw)
	case u.User != nil:
		return fmt.Errorf("BASE_URL must not contain a user name or password")
	}
	return nil
}
