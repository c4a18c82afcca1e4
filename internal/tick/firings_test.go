package tick

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The firings lookup answers the same whichever way it stores the ids:
// dense when they are few and small, a map when one is far beyond the
// row count or negative.
func TestFirings(t *testing.T) {
	for name, tc := range map[string]struct {
		ids   []int64
		dense bool
	}{
		"dense":        {[]int64{1, 2, 3, 7, 1000}, true},
		"far":          {[]int64{5, 1 << 40, 1 << 33}, false},
		"negative":     {[]int64{-3, 2}, true},
		"none":         {nil, true},
		"at the bound": {[]int64{4*1 + 1024 - 1}, true}, // one row: ids below 4·1+1024 stay dense
		"just over":    {[]int64{4*1 + 1024}, false},
	} {
		t.Run(name, func(t *testing.T) {
			sets := make([]uint8, len(tc.ids))
			want := map[int64]uint8{}
			for i, id := range tc.ids {
				sets[i] = uint8(i%7 + 1)
				want[id] = sets[i]
			}
			f := newFirings(tc.ids, sets)
			require.Equal(t, tc.dense, f.dense != nil, "dense")
			for _, id := range append(tc.ids, 0, 4, 999, 1001, 1<<41, -1) {
				require.Equal(t, want[id], f.get(id), "org %d", id)
			}
		})
	}
}
