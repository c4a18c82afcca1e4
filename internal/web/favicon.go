package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/static"
)

// faviconMaxAge lets browsers keep the icon a day without asking again:
// it changes rarely, and a stale icon for a day harms no one (the rest of
// /static revalidates on every use, middleware.go).
const faviconMaxAge = "public, max-age=86400"

// favicon serves an icon from static with caching headers: the SVG the
// layout links first and the PNG fallback. Every page names them, so
// browsers do not ask for /favicon.ico (which stays a 404, keeping the
// route table to /static for files).
func favicon(name, contentType string) echo.HandlerFunc {
	return func(c echo.Context) error {
		b, err := static.FS.ReadFile(name)
		if err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", faviconMaxAge)
		return c.Blob(http.StatusOK, contentType, b)
	}
}
