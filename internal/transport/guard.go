package transport

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/text"
)

// guardian decides which addresses a webhook may reach: everything but
// IANA's special-purpose ranges (loopback, private, link-local, CGNAT,
// multicast, unspecified, documentation…) and, for IPv6, everything outside
// global unicast, which covers IPv4-mapped forms. Any port: receivers run
// on 8443 too, and the address is what protects our network.
var guardian = ssrf.New(ssrf.WithAnyPort())

// refusedError is the dial-time refusal. It is permanent: the name resolves
// to an address we will not call, and retrying will not change our mind.
type refusedError struct {
	reason string
}

func (e *refusedError) Error() string { return "refused: " + e.reason }

// guardControl is net.Dialer.Control for webhooks: it runs after DNS
// resolution, on the address actually being connected to, so a name that
// resolves (or re-resolves) to an internal address is caught too.
func guardControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &refusedError{reason: fmt.Sprintf("cannot parse address %q", address)}
	}
	return refuseIP(network, ap)
}

// refuseIP applies the guardian's rule and explains a refusal in words.
func refuseIP(network string, ap netip.AddrPort) error {
	err := guardian.Safe(network, ap.String(), nil)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ssrf.ErrProhibitedIP):
		return &refusedError{reason: describeIP(ap.Addr())}
	default: // an unexpected network type: the library's words will do
		return &refusedError{reason: err.Error()}
	}
}

// describeIP names the range a refused address belongs to.
func describeIP(ip netip.Addr) string {
	shown := ip.String()
	if ip.Is4In6() {
		ip = ip.Unmap()
		shown += " (IPv4-mapped " + ip.String() + ")"
	}
	cgnat := netip.MustParsePrefix("100.64.0.0/10")
	var kind string
	switch {
	case ip.IsLoopback():
		kind = "a loopback address"
	case ip.IsUnspecified():
		kind = "the unspecified address"
	case ip.IsPrivate():
		kind = "a private address"
	case ip.IsLinkLocalUnicast():
		kind = "a link-local address (this range holds cloud metadata services)"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		kind = "a multicast address"
	case cgnat.Contains(ip):
		kind = "a shared (CGNAT) address"
	default:
		kind = "in a reserved, non-public range"
	}
	return shown + " is " + kind
}

// maxWebhookURL bounds a webhook URL, as browsers and proxies commonly do.
const maxWebhookURL = 2048

// CheckWebhookURL validates a webhook URL when settings are saved: https (or
// http when private networks are allowed), a host, no credentials, no
// fragment, at most 2048 characters. Without allowPrivate it also refuses a
// literal address in a refused range, a number that is not spelled as an
// address, and the name localhost. It does not resolve names: the dialer
// checks the resolved address at every delivery.
// Errors are apperr.Invalid with a message for the form.
func CheckWebhookURL(raw string, allowPrivate bool) error {
	invalid := func(format string, args ...any) error {
		return apperr.Errorf(apperr.Invalid, format, args...)
	}
	if raw == "" {
		return invalid("Enter the webhook URL.")
	}
	if len(raw) > maxWebhookURL {
		return invalid("The webhook URL is longer than %d characters.", maxWebhookURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalid("This is not a valid URL.")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	case u.Scheme == "http":
		return invalid("The webhook URL must start with https:// so that the briefing is encrypted on the way.")
	default:
		return invalid("The webhook URL must start with https://.")
	}
	if u.User != nil {
		return invalid("The webhook URL must not contain a user name or password; requests are signed with the webhook secret instead.")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return invalid("The webhook URL must not contain a #fragment.")
	}
	host := u.Hostname()
	if host == "" {
		return invalid("The webhook URL has no host name.")
	}
	if !text.URLPortOK(u.Host) {
		return invalid("The webhook URL's port must be a port from 1 to 65535, or none for the usual one (443 for https).")
	}
	if allowPrivate {
		return nil
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return invalid("The webhook URL points at this server (%s); use a public address.", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		network := "tcp4"
		if ip.Is6() {
			network = "tcp6"
		}
		if err := refuseIP(network, netip.AddrPortFrom(ip, 443)); err != nil {
			return invalid("The webhook URL is refused: %s; use a public address.", describeIP(ip))
		}
	} else if numericHost(name) {
		// "127.1", "2130706433" and "0x7f000001" are loopback to resolvers
		// that accept inet_aton's short forms; netip does not parse them,
		// so only the dotted-quad spelling, which the check above sees, may
		// be saved.
		return invalid("The webhook URL's host %s is not an IP address in the usual form, four numbers such as 93.184.216.34.", host)
	}
	return nil
}

// numericHost reports whether a host that is not an IP address still looks
// like a number: its last label is all digits or 0x-hex, as no real
// top-level domain is.
func numericHost(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if hex, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}
