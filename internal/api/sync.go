package api

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
)

// Writes an integration can sync with (docs/api.md, "Syncing from another
// system"): If-None-Match on a write (RFC 9110, 13.1.2), a PATCH that
// creates from a whole record, and GET's 304. If-Match is versions.go's.

// ifNoneMatch is a request's If-None-Match header (RFC 9110, 13.1.2);
// "*" on a write creates only.
type ifNoneMatch tagList

func ifNoneMatchOf(c echo.Context) ifNoneMatch { return ifNoneMatch(tagListOf(c, "If-None-Match")) }

// check is the write's precondition: it fails (412, nothing saved) when a
// record exists and the header is "*" (create only) or names its current
// ETag (compared weakly, as RFC 9110 says If-None-Match is).
func (m ifNoneMatch) check(exists bool, id, version int64) error {
	if !m.present || !exists {
		return nil
	}
	if m.any {
		return apperr.Errorf(apperr.Precondition,
			"A record with this reference exists (%s), and If-None-Match: * creates only. Nothing was saved; PATCH it to change it.",
			etagOf(id, version))
	}
	if m.matches(etagOf(id, version)) {
		return apperr.Errorf(apperr.Precondition, "The record is at a version If-None-Match names (%s); nothing was saved.", etagOf(id, version))
	}
	return nil
}

// matches compares weakly: W/"x" and "x" are the same tag here.
func (m ifNoneMatch) matches(etag string) bool {
	return m.any || slices.ContainsFunc(m.tags, func(t string) bool { return strings.TrimPrefix(t, "W/") == etag })
}

// notModified answers a GET whose If-None-Match names the record's ETag:
// 304, with the tag and no body, so a poller pays for nothing that did not
// change.
func notModified(c echo.Context, etag string) (bool, error) {
	m := ifNoneMatchOf(c)
	if !m.present || !m.matches(etag) {
		return false, nil
	}
	c.Response().Header().Set("ETag", etag)
	return true, c.NoContent(http.StatusNotModified)
}

// missingForCreate lists the required members a merge patch lacks (or
// sets to null) to make a record of its own.
func missingForCreate(patch map[string]json.RawMessage, nulls map[string]bool, required ...string) []string {
	var out []string
	for _, name := range required {
		if _, ok := patch[name]; !ok || nulls[name] {
			out = append(out, name)
		}
	}
	return out
}

// setLocation names a created record's URL, the path it was written at.
func setLocation(c echo.Context, collection, ref string) {
	c.Response().Header().Set("Location", "/api/v1/"+collection+"/"+url.PathEscape(ref))
}

// preconditionETag puts the record's current ETag on a 412, so the client
// learns the version it lost to without another GET.
func preconditionETag(c echo.Context, err error, etag string) {
	if etag != "" && apperr.Code(err) == apperr.Precondition {
		c.Response().Header().Set("ETag", etag)
	}
}
