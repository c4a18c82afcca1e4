package text

import (
	"errors"
	"fmt"
	"net/mail"
	"net/netip"
	"strings"
)

// MaxAddressLen is the longest email address, in bytes: SMTP's 256-octet
// path less its angle brackets (RFC 5321).
const MaxAddressLen = 254

// Address problem codes: stable, for pages to word in the reader's
// language and for clients to switch on (AddressCode).
const (
	CodeAddressEmpty    = "address_empty"
	CodeAddressTooLong  = "address_too_long"
	CodeAddressInvalid  = "address_invalid"
	CodeAddressQuoted   = "address_quoted"
	CodeAddressIP       = "address_ip_literal"      // root@[127.0.0.1], root@127.0.0.1
	CodeAddressDotless  = "address_dotless_domain"  // postmaster@localhost, zoe@lonestar
	CodeAddressInternal = "address_internal_domain" // x@printer.local, x@db.internal
)

// AddressError is why a string is not an address (or not one we send to):
// a stable Code and an English message.
type AddressError struct {
	Code string
	msg  string
}

func (e *AddressError) Error() string { return e.msg }

// AddressCode is the code of an address error, CodeAddressInvalid for any
// other error, "" for nil.
func AddressCode(err error) string {
	var e *AddressError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	}
	return CodeAddressInvalid
}

// Why a string is not an address; callers word their own messages from
// these (or from their codes).
var (
	ErrAddressEmpty   = &AddressError{CodeAddressEmpty, "address is empty"}
	ErrAddressTooLong = &AddressError{CodeAddressTooLong, fmt.Sprintf("address is too long (at most %d characters)", MaxAddressLen)}
	ErrNotAnAddress   = &AddressError{CodeAddressInvalid, "not an email address"}
	// net/mail unquotes a quoted local part ("a b"@x becomes a b@x), which
	// is no longer an address: such rare forms are refused rather than
	// stored in a spelling that does not parse again.
	ErrAddressQuoted = &AddressError{CodeAddressQuoted, "quoted names before the @ are not supported"}

	// Addresses we never send to (CheckRecipient).
	ErrAddressIPLiteral = &AddressError{CodeAddressIP, "the part after the @ is an IP address: use a domain name such as example.com"}
	ErrAddressDotless   = &AddressError{CodeAddressDotless, "the part after the @ is not a full domain name such as example.com"}
	ErrAddressInternal  = &AddressError{CodeAddressInternal, "the part after the @ is a name for internal networks (such as .local or .internal), not a public domain"}
)

// ParseAddress is the one rule for what an email address is: what
// net/mail parses (RFC 5322), at most MaxAddressLen bytes, and unchanged
// by parsing it again. A display name ("Ana <ana@example.com>") is allowed
// and dropped: it returns the bare address.
func ParseAddress(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", ErrAddressEmpty
	}
	// Bounded before parsing: net/mail is linear, but there is no reason to
	// parse a megabyte to learn it is too long.
	if len(s) > 4*MaxAddressLen {
		return "", ErrAddressTooLong
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return "", ErrNotAnAddress
	}
	if len(a.Address) > MaxAddressLen {
		return "", ErrAddressTooLong
	}
	if bare, err := mail.ParseAddress(a.Address); err != nil || bare.Address != a.Address {
		return "", ErrAddressQuoted
	}
	return a.Address, nil
}

// NormalizeAddress trims s and checks that what is left is a bare address
// (ParseAddress, without a display name): the form every stored address
// (an account's, an invite's, a technician's) has.
func NormalizeAddress(s string) (string, error) {
	s = strings.TrimSpace(s)
	addr, err := ParseAddress(s)
	if err != nil {
		return "", err
	}
	if addr != s {
		return "", ErrNotAnAddress
	}
	return addr, nil
}

// internalSuffixes are the names that never reach the public internet:
// RFC 6761's localhost and invalid, RFC 6762's local (mDNS), ICANN's
// internal (reserved for private use, 2024), home.arpa (RFC 8375) and
// arpa's reverse zones, and the suffixes routers and company networks use
// that ICANN will not delegate (lan, localdomain, intranet, corp, home,
// private). test and example (RFC 2606) are not here: they are the
// documentation's and the test suites' domains.
var internalSuffixes = []string{"localhost", "local", "internal", "invalid", "arpa", "lan", "localdomain", "intranet", "corp", "home", "private"}

// CheckRecipient says whether we send to the bare address addr (as
// ParseAddress returns it): the domain must be a public domain name, not an
// IP literal (root@[127.0.0.1], or 127.0.0.1 unbracketed), not a name
// without a dot (postmaster@localhost, zoe@lonestar), not an internal
// suffix (internalSuffixes). Mail to those goes to the mail server's own
// host or network, which is how a tenant would probe or spam it.
func CheckRecipient(addr string) error {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return ErrNotAnAddress
	}
	domain := strings.ToLower(addr[at+1:])
	if strings.HasPrefix(domain, "[") {
		return ErrAddressIPLiteral
	}
	if _, err := netip.ParseAddr(domain); err == nil {
		return ErrAddressIPLiteral
	}
	dot := strings.LastIndexByte(domain, '.')
	if dot <= 0 || dot == len(domain)-1 {
		return ErrAddressDotless
	}
	tld := domain[dot+1:]
	if strings.Trim(tld, "0123456789") == "" {
		return ErrAddressIPLiteral // 127.1, 10.0.0.1 written short: no top-level domain is digits
	}
	for _, s := range internalSuffixes {
		if tld == s || strings.HasSuffix(domain, "."+s) {
			return ErrAddressInternal
		}
	}
	return nil
}

// ParseRecipient is ParseAddress for an address we send to: a display name
// is allowed and dropped, and the domain must pass CheckRecipient. The
// briefing's recipients (delivery.email.to) are read with it.
func ParseRecipient(s string) (string, error) {
	addr, err := ParseAddress(s)
	if err != nil {
		return "", err
	}
	if err := CheckRecipient(addr); err != nil {
		return "", err
	}
	return addr, nil
}

// NormalizeRecipient is NormalizeAddress for an address we send to (a
// technician's, an invite's): bare, and passing CheckRecipient. Sign-in and
// forgot-password keep the looser NormalizeAddress, so an account made
// before this rule can still sign in.
func NormalizeRecipient(s string) (string, error) {
	addr, err := NormalizeAddress(s)
	if err != nil {
		return "", err
	}
	if err := CheckRecipient(addr); err != nil {
		return "", err
	}
	return addr, nil
}
