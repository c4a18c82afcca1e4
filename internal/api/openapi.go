package api

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDoc is the API's OpenAPI 3.1 document, written and kept by hand
// beside the handlers it describes (docs/api.md, "OpenAPI"):
// TestOpenAPIDescribesTheAPI drives the real API and validates every
// request and answer against it, so it cannot drift from what the server
// does unnoticed.
//
//go:embed openapi.json
var openAPIDoc []byte

// apiOpenAPI serves the document, to anyone: it describes the API, it
// opens nothing.
func (a *API) apiOpenAPI(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "public, max-age=3600")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDoc)
}
