package web

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// The zones endpoint (docs/decisions/0003-stable-interfaces.md) answers the picker's listbox: its
// options in rank order, each with a stable id and its canonical zone in
// data-zone, labelled with the place, the zone, its offset and time now.
func TestZoneSearch(t *testing.T) {
	t.Parallel()
	f := setup(t)
	setClock(f, time.Date(2026, 1, 15, 13, 4, 0, 0, time.UTC))
	admin := f.as(&f.adminA).htmx()
	options := func(q string) []htmlNode {
		t.Helper()
		r := admin.get(settingsPath + "/zones?q=" + url.QueryEscape(q))
		require.Equal(t, http.StatusOK, r.Code)
		return parseDoc(t, r.Body).findAll(hasClass("zone-option"))
	}
	zonesOf := func(opts []htmlNode) []string {
		var out []string
		for _, o := range opts {
			out = append(out, o.attr("data-zone"))
		}
		return out
	}

	ny := options("new y")
	require.NotEmpty(t, ny)
	require.Equal(t, "America/New_York", ny[0].attr("data-zone"))
	require.Equal(t, "option", ny[0].attr("role"))
	require.Equal(t, "zone-opt-America--New_York", ny[0].attr("id"))
	require.Equal(t, "false", ny[0].attr("aria-selected"))
	require.Contains(t, ny[0].text(), "New York, New York, United States")
	require.Contains(t, ny[0].text(), "America/New_York")
	require.Contains(t, ny[0].text(), "UTC−05:00, 8:04 AM now", "current offset and local time, on acme's (en-US) 12-hour clock")

	require.Equal(t, "America/New_York", options("nyc")[0].attr("data-zone"))
	require.Equal(t, "Europe/London", options("lon")[0].attr("data-zone"))
	require.Equal(t, []string{"Asia/Kolkata", "Asia/Colombo"}, zonesOf(options("+05:30")))
	ist := zonesOf(options("IST"))
	require.Equal(t, []string{"Asia/Kolkata", "Asia/Jerusalem", "Europe/Dublin"}, ist[:3], "every zone the abbreviation names")
	require.Len(t, options("a"), zoneResultsLimit)

	kolkata := options("calcutta")
	require.NotEmpty(t, kolkata)
	require.Equal(t, "Asia/Kolkata", kolkata[0].attr("data-zone"), "legacy names find the canonical zone")
	require.Contains(t, kolkata[0].text(), "UTC+05:30, 6:34 PM now")

	require.Empty(t, options(""))
	r := admin.get(settingsPath + "/zones?q=zzzz")
	doc := parseDoc(t, r.Body)
	require.Empty(t, doc.findAll(hasClass("zone-option")))
	none := doc.find(hasClass("zone-none"))
	require.Contains(t, none.text(), "No time zone matches “zzzz”")
	require.Equal(t, "true", none.attr("aria-disabled"), "not an option anyone can pick")
	_, hasZone := hasAttr(none.n, "data-zone")
	require.False(t, hasZone)

	// A client that sends the input's own name is answered the same.
	r = admin.get(settingsPath + "/zones?timezone=paris")
	require.Equal(t, "Europe/Paris", parseDoc(t, r.Body).find(hasClass("zone-option")).attr("data-zone"))
}

// The settings page renders the picker as a plain field that works without
// JavaScript (a text input named timezone) and loads the script that makes
// it a combobox.
func TestZonePickerMarkup(t *testing.T) {
	t.Parallel()
	f := setup(t)
	doc := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body)
	in := doc.byID("timezone")
	require.Equal(t, "timezone", in.attr("name"))
	require.Equal(t, "text", in.attr("type"))
	require.Equal(t, settingsPath+"/zones", in.attr("hx-get"))
	require.Equal(t, "listbox", doc.byID("zone-results").attr("role"))
	require.Equal(t, "timezone-label", doc.byID("zone-results").attr("aria-labelledby"))
	require.Equal(t, "status", doc.byID("zone-status").attr("role"))
	require.NotEmpty(t, doc.findAll(func(n *html.Node) bool {
		src, _ := hasAttr(n, "src")
		return src == "/static/picker.js"
	}))
}
