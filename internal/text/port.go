package text

import (
	"strconv"
	"strings"
)

// URLPortOK reports whether the host part of a URL (url.URL.Host: "host",
// "host:port", "[v6]:port") names no port, or a port from 1 to 65535.
// net/url takes any run of digits as a port, and a colon with none after
// it: 0, 65536 and "host:" parse, though nothing can be reached there.
// The webhook URL's checks (on save, and before every call) use it.
func URLPortOK(host string) bool {
	i := strings.LastIndexByte(host, ':')
	if i < 0 || i < strings.LastIndexByte(host, ']') {
		return true // no port: the scheme's own
	}
	port := host[i+1:]
	if port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}
