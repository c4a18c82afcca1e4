package httpkit

import (
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
)

// requestIDRE is what a client's X-Request-Id may be (a load balancer's
// trace id fits); anything else is replaced by one of ours.
var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// SafeRequestID drops an X-Request-Id that is not a short safe token, so
// echo's RequestID, which echoes the header and logs it, makes its own.
func SafeRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header
		if id := h.Get(echo.HeaderXRequestID); id != "" && !requestIDRE.MatchString(id) {
			h.Del(echo.HeaderXRequestID)
		}
		return next(c)
	}
}

// errBadText answers text PostgreSQL would refuse (and no person types).
var errBadText = apperr.Errorf(apperr.Malformed,
	"The request contains a NUL character or text that is not valid UTF-8. Check what you entered and try again.")

// CheckText refuses a request whose path, query or form holds a NUL byte
// or invalid UTF-8, before any of it reaches a query: in one place rather
// than in every handler and store method that takes text.
func CheckText(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if !goodText(r.URL.Path) {
			return errBadText
		}
		if !goodValues(r.URL.Query()) || !goodValues(r.PostForm) {
			return errBadText
		}
		return next(c)
	}
}

func goodValues(vs url.Values) bool {
	for k, v := range vs {
		if !goodText(k) || slices.ContainsFunc(v, func(s string) bool { return !goodText(s) }) {
			return false
		}
	}
	return true
}

func goodText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// IPExtractor decides what c.RealIP() is: the TCP peer, or with trusted
// proxies the nearest X-Forwarded-For address outside their ranges. echo
// would also trust loopback and private networks by default; we trust only
// what the operator listed, so nobody else can pick their own address.
func IPExtractor(proxies []*net.IPNet) echo.IPExtractor {
	if len(proxies) == 0 {
		return echo.ExtractIPDirect()
	}
	trust := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range proxies {
		trust = append(trust, echo.TrustIPRange(p))
	}
	return echo.ExtractIPFromXFFHeader(trust...)
}

// CheckValues is CheckText's rule for a form read after it ran (a route
// that reads its own body, under a cap of its own).
func CheckValues(vs url.Values) error {
	if !goodValues(vs) {
		return errBadText
	}
	return nil
}
