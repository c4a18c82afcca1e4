package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// GeoNames' other names are kept where a German, English, Spanish or French
// speaker could type them, and only when a search would not find the city
// by them already.
func TestGeoNamesFilter(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"Mailand": true, "Múnich": true, "Genève": true, "Nouvelle-Orléans": true, "Mexico D.F.": true,
		"MUC": false, "IST": false, // airport codes
		"mekishikoshiti":  false,                                                   // a lower-case romanization
		"Kolín nad Rýnem": false, "Łondra": false, "Мюнхен": false, "ミュンヘン": false, // letters of other languages
	} {
		require.Equal(t, want, usable(name), name)
	}
	have := []string{"milan", "milano"}
	require.True(t, variant("milanu", have), "one letter from a name kept")
	require.False(t, variant("mailand", have))
	require.False(t, variant("bale", []string{"basel", "bala"}), "short names one letter apart are other names")
	all := []string{"munich", "monaco", "monaco di baviera", "munchen", "lungsod ng munchen"}
	require.True(t, extended("monaco di baviera", all))
	require.True(t, extended("lungsod ng munchen", all))
	require.False(t, extended("munchen", all))
}
