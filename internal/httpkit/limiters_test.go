package httpkit

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLimitersEvictLeastRecentlyUsed: a full table whose clients are all
// busy drops the one used longest ago, never one just used (the day link
// page's table, filled by a client rotating addresses past its capacity).
func TestLimitersEvictLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	const capacity = 10
	l := NewLimiters[string](1, 2, capacity)
	key := func(i int) string { return fmt.Sprintf("198.51.100.%d", i) }
	for i := range 5 * capacity {
		require.True(t, l.Get(key(i), now).AllowN(now, 2), "a new client starts with a full burst")
		require.LessOrEqual(t, len(l.m), capacity)
		// The newest clients are all still held, with their spent budgets.
		for j := max(0, i-capacity+1); j <= i; j++ {
			require.Contains(t, l.m, key(j), "after client %d, client %d (among the %d newest) was dropped", i, j, capacity)
		}
	}
	// A client that comes back is the newest again: the next one in drops another.
	back := l.Get(key(5*capacity-capacity), now)
	require.False(t, back.AllowN(now, 1), "a held client got a fresh burst")
	l.Get("203.0.113.1", now)
	require.Contains(t, l.m, key(5*capacity-capacity))
	require.NotContains(t, l.m, key(5*capacity-capacity+1))
	require.Len(t, l.m, capacity)
}

// BenchmarkDayLinkLimiterEviction: what one new client costs when the day
// link page's table is full of busy clients, the worst case (every new
// client evicts). Reported per new client, at the table's real capacity
// and ten times it: the cost must not grow with the table.
func BenchmarkDayLinkLimiterEviction(b *testing.B) {
	// The day link page's table (internal/web/daylink.go): one a second,
	// bursts of 60, 10,000 clients.
	const dayLinkRate, dayLinkBurst, maxDayLinkLimiters = 1, 60, 10_000
	now := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	for _, size := range []int{maxDayLinkLimiters, 10 * maxDayLinkLimiters} {
		b.Run(fmt.Sprintf("entries=%d", size), func(b *testing.B) {
			l := NewLimiters[string](dayLinkRate, dayLinkBurst, size)
			keys := make([]string, size+b.N)
			for i := range keys {
				keys[i] = fmt.Sprintf("k%d", i)
			}
			for _, k := range keys[:size] {
				l.Get(k, now).AllowN(now, dayLinkBurst) // busy: nothing to drop for free
			}
			b.ResetTimer()
			for i := range b.N {
				l.Get(keys[size+i], now).AllowN(now, dayLinkBurst)
			}
		})
	}
}

func TestLimitersStayBounded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	// Idle tokens' limiters (buckets full) make room before a busy one's.
	l := NewLimiters[int64](1, 2, 10)
	busy := l.Get(1, now)
	require.True(t, busy.AllowN(now, 2))
	for id := range int64(200) {
		l.Get(100+id, now)
		require.LessOrEqual(t, len(l.m), 10)
	}
	require.Same(t, busy, l.Get(1, now), "the busy token keeps its spent budget")
	// All busy: still bounded.
	l = NewLimiters[int64](1, 2, 10)
	for id := range int64(100) {
		require.True(t, l.Get(id, now).AllowN(now, 1))
		require.LessOrEqual(t, len(l.m), 10)
	}
}
