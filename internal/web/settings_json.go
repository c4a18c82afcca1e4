package web

import (
	"github.com/labstack/echo/v4"

	"fieldbrief/internal/tenants"
)

// settingsSaveJSON saves the raw config document from the JSON editor,
// through the same strict validation as the form.
func (s *Server) settingsSaveJSON(c echo.Context) error {
	text := c.FormValue("config_json")
	version, err := formVersion(c, tenants.AnyVersion)
	if err != nil {
		return err
	}
	return s.saveSettings(c, []byte(text), rejected{json: &text, version: version}, "saved", "settings")
}
