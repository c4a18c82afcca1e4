package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// Deprecating an operation of the API (docs/api.md, "Compatibility"): the
// OpenAPI document is the one place that says so. The operation is marked
// "deprecated": true and carries
//
//	"x-deprecation": {"since": "2027-01-04T00:00:00Z", "sunset": "2027-07-05T00:00:00Z", "link": "https://…"}
//
// (sunset and link optional), and every answer to it, errors included,
// then carries Deprecation (RFC 9745), Sunset (RFC 8594) and Link
// rel="deprecation" and rel="sunset": generated clients see the flag,
// running integrations the headers, and the two cannot disagree.

// deprecations holds the headers of each deprecated operation's answers,
// by method and echo's path ("GET /api/v1/jobs/:ref").
type deprecations map[string]http.Header

// xDeprecation is an operation's x-deprecation member.
type xDeprecation struct {
	Since  time.Time  `json:"since"`
	Sunset *time.Time `json:"sunset"`
	Link   string     `json:"link"`
}

var operationMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true,
	"options": true, "head": true, "patch": true, "trace": true}

// docPathParam is an OpenAPI path template's parameter, {ref}, which echo writes :ref.
var docPathParam = regexp.MustCompile(`\{([^}/]+)\}`)

// deprecationsOf reads the deprecated operations of an OpenAPI document. An
// operation half marked (deprecated without x-deprecation.since, or the
// other way round) or a sunset before its deprecation is an error: the
// server refuses to start rather than announce it wrong.
func deprecationsOf(doc []byte) (deprecations, error) {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("read the OpenAPI document: %w", err)
	}
	out := deprecations{}
	for path, item := range d.Paths {
		for method, raw := range item {
			if !operationMethods[method] {
				continue // the path item's parameters, summary, …
			}
			var op struct {
				Deprecated  bool          `json:"deprecated"`
				Deprecation *xDeprecation `json:"x-deprecation"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(method), path, err)
			}
			if !op.Deprecated && op.Deprecation == nil {
				continue
			}
			h, err := op.Deprecation.headers(op.Deprecated)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(method), path, err)
			}
			out[strings.ToUpper(method)+" "+docPathParam.ReplaceAllString(path, ":$1")] = h
		}
	}
	return out, nil
}

// headers are the answers' headers of an operation deprecated as x says.
func (x *xDeprecation) headers(deprecated bool) (http.Header, error) {
	switch {
	case !deprecated:
		return nil, fmt.Errorf(`x-deprecation without "deprecated": true`)
	case x == nil || x.Since.IsZero():
		return nil, fmt.Errorf(`"deprecated": true without x-deprecation.since (the Deprecation header's date)`)
	case x.Sunset != nil && !x.Sunset.After(x.Since):
		return nil, fmt.Errorf("x-deprecation.sunset %s is not after its since %s", x.Sunset.Format(time.RFC3339), x.Since.Format(time.RFC3339))
	}
	h := http.Header{}
	// RFC 9745: a Structured Field Date, seconds since the epoch.
	h.Set("Deprecation", "@"+strconv.FormatInt(x.Since.Unix(), 10))
	if x.Sunset != nil {
		// RFC 8594: an HTTP-date.
		h.Set("Sunset", x.Sunset.UTC().Format(http.TimeFormat))
	}
	if x.Link != "" {
		h.Add("Link", "<"+x.Link+`>; rel="deprecation"`)
		if x.Sunset != nil {
			h.Add("Link", "<"+x.Link+`>; rel="sunset"`)
		}
	}
	return h, nil
}

// announceDeprecation adds a deprecated operation's headers to its answer,
// before anything else runs, so a 401 or a 404 of it carries them too.
func (a *API) announceDeprecation(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		method := c.Request().Method
		if method == http.MethodHead {
			method = http.MethodGet // HEAD answers as GET does
		}
		for k, vs := range a.deprecated[method+" "+c.Path()] {
			for _, v := range vs {
				c.Response().Header().Add(k, v)
			}
		}
		return next(c)
	}
}
