package httpkit

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

// csrfServer is an echo with the two halves on every route, as the web
// server puts them (the check after a route's access checks).
func csrfServer(k CSRF) *echo.Echo {
	e := echo.New()
	issue, check := k.Middleware()
	e.Use(issue)
	ok := func(c echo.Context) error { return c.String(http.StatusOK, c.Get(k.ContextKey).(string)) }
	e.GET("/form", ok)
	e.POST("/form", ok, check)
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		if err == ErrCSRF {
			_ = c.String(http.StatusForbidden, "csrf")
			return
		}
		e.DefaultHTTPErrorHandler(err, c)
	}
	return e
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	k := CSRF{ContextKey: "csrf", Skip: func(echo.Context) bool { return false }}
	e := csrfServer(k)

	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/form", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	token := rec.Body.String()
	require.NotEmpty(t, token, "a GET issues the token to the page")
	cookie := rec.Result().Cookies()[0]
	require.Equal(t, CSRFCookie, cookie.Name)
	require.Equal(t, token, cookie.Value)

	post := func(form url.Values, header map[string]string) int {
		req := httptest.NewRequest(http.MethodPost, "/form", strings.NewReader(form.Encode()))
		req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
		req.AddCookie(cookie)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec.Code
	}
	require.Equal(t, http.StatusOK, post(url.Values{"_csrf": {token}}, nil), "the form field")
	require.Equal(t, http.StatusOK, post(nil, map[string]string{CSRFHeader: token}), "the header")
	require.Equal(t, http.StatusForbidden, post(nil, nil), "no token")
	require.Equal(t, http.StatusForbidden, post(url.Values{"_csrf": {"forged"}}, nil), "a wrong token")
	require.Equal(t, http.StatusForbidden, post(url.Values{"_csrf": {token}}, map[string]string{"Sec-Fetch-Site": "cross-site"}), "cross-site")

	// A token in the query string is never taken: URLs leak.
	req := httptest.NewRequest(http.MethodPost, "/form?_csrf="+url.QueryEscape(token), nil)
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
	req.AddCookie(cookie)
	rec = httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	require.Equal(t, http.StatusForbidden, rec.Code)

	require.Equal(t, CSRFCookieSecure, CSRF{Secure: true}.CookieName(), "__Host- with Secure cookies")
}
