package text

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"
)

// MaxAddressLen is the longest email address, in bytes: SMTP's 256-octet
// path less its angle brackets (RFC 5321).
const MaxAddressLen = 254

// Why a string is not an address; callers word their own messages from
// these.
var (
	ErrAddressEmpty   = errors.New("address is empty")
	ErrAddressTooLong = fmt.Errorf("address is too long (at most %d characters)", MaxAddressLen)
	ErrNotAnAddress   = errors.New("not an email address")
	// net/mail unquotes a quoted local part ("a b"@x becomes a b@x), which
	// is no longer an address: such rare forms are refused rather than
	// stored in a spelling that does not parse again.
	ErrAddressQuoted = errors.New("quoted names before the @ are not supported")
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
