package web

import (
	"encoding/json"
	"fmt"

	"github.com/labstack/echo/v4"
)

// settingsSetEnabled pauses or resumes the briefings: it changes only the
// document's "enabled" and saves it like any other edit (validated, audited).
// A stored document that does not validate cannot be saved, so the page then
// shows what to fix first.
func (s *Server) settingsSetEnabled(c echo.Context) error {
	stored, err := s.tenants.Fieldforce(c.Request().Context(), currentMembership(c).Org.ID)
	if err != nil {
		return err
	}
	enabled := parseEnabled(c.FormValue("enabled"))
	in := storedInput(stored)
	in.enabled = enabled
	raw, err := withEnabled(stored.Raw, enabled)
	if err != nil {
		return err
	}
	notice := "paused"
	if on, _ := enabled.(bool); on {
		notice = "resumed"
	}
	// Pause and resume carry no version: the button changes one member of
	// the document as it is now, whatever else changed (docs/versions.md).
	return s.saveSettings(c, raw, rejected{form: &in, version: -1}, notice, c.FormValue("next"))
}

// withEnabled sets briefing.enabled in a document, keeping the rest as it is.
func withEnabled(raw []byte, enabled any) ([]byte, error) {
	var doc map[string]map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil || doc["briefing"] == nil {
		doc = map[string]map[string]any{"briefing": {}}
	}
	doc["briefing"]["enabled"] = enabled
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("set enabled: %w", err)
	}
	return out, nil
}
