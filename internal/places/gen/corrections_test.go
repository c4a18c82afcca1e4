package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The corrections file parses, names real zones only, and moves the cities
// the checks found on the wrong clock, and no others.
func TestCorrections(t *testing.T) {
	t.Parallel()
	c, err := loadCorrections("corrections.tsv", canonicalZone)
	require.NoError(t, err)
	for _, tc := range []struct {
		city cityRef
		want string
	}{
		{cityRef{country: "US", province: "Arizona", state: "AZ", name: "Winslow", zone: "America/Denver"}, "America/Phoenix"},
		{cityRef{country: "US", province: "Arizona", state: "AZ", name: "Tuba City", zone: "America/Denver"}, "America/Denver"}, // Navajo Nation
		{cityRef{country: "US", province: "Arizona", state: "AZ", name: "Tucson", zone: "America/Phoenix"}, "America/Phoenix"},
		{cityRef{country: "US", province: "Colorado", state: "CO", name: "Denver", zone: "America/Denver"}, "America/Denver"},
		{cityRef{country: "CN", province: "Xizang", name: "Lhasa", zone: "Asia/Urumqi"}, "Asia/Shanghai"},
		{cityRef{country: "CN", province: "Xinjiang Uygur", name: "Kashgar", zone: "Asia/Urumqi"}, "Asia/Urumqi"},
		{cityRef{country: "BO", province: "Pando", name: "Cobija", zone: "America/Rio_Branco"}, "America/La_Paz"},
		{cityRef{country: "CL", province: "Magallanes y Antártica Chilena", name: "Punta Arenas", zone: "America/Santiago"}, "America/Punta_Arenas"},
		{cityRef{country: "CA", province: "Ontario", name: "Windsor", zone: "America/Detroit"}, "America/Toronto"},
		{cityRef{country: "CA", province: "Nova Scotia", name: "Windsor", zone: "America/Halifax"}, "America/Halifax"},
	} {
		require.Equal(t, tc.want, c.correct(tc.city), "%+v", tc.city)
	}

	countries := map[string]map[string]bool{"Europe/Berlin": {"DE": true}, "America/Denver": {"US": true}}
	own := map[[2]string]string{{"US", "Denver"}: "America/Denver"}
	require.Empty(t, c.suspect(cityRef{country: "DE", name: "Munich", zone: "Europe/Berlin"}, countries, own))
	require.Contains(t, c.suspect(cityRef{country: "FR", name: "Strasbourg", zone: "Europe/Berlin"}, countries, own), "not of \"FR\"")
	require.Empty(t, c.suspect(cityRef{country: "AT", province: "Oberösterreich", name: "Passau", zone: "Europe/Berlin"}, countries, own), "reviewed and kept")
	require.Contains(t, c.suspect(cityRef{country: "US", name: "Denver", zone: "America/Chicago"}, map[string]map[string]bool{"America/Chicago": {"US": true}}, own), "city of zone America/Denver")

	_, err = loadCorrections("corrections.tsv", func(string) string { return "" })
	require.ErrorContains(t, err, "unknown zone")
}
