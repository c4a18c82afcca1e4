package httpkit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiters is a bounded map of limiters, per API token (by id) or per
// client address (the day link page's). Written here rather
// than taken from a cache library because the eviction rule is specific:
// a limiter whose bucket is full again is indistinguishable from a fresh
// one, so dropping it loses nothing, and those go first.
//
// When full, a new key evicts in O(1) (a client rotating addresses must
// not make every request scan the table): the entries are kept in the
// order they were last used, and the least recently used of them is the
// one likeliest to have refilled. Of the evictCandidates used longest ago,
// the first whose bucket is full goes; when all are busy, the least
// recently used goes anyway, a fresh burst for one client rather than
// unbounded memory.
type Limiters[K comparable] struct {
	rate  rate.Limit
	burst int
	max   int

	mu sync.Mutex
	m  map[K]*limiterEntry[K]
	// lru is a ring through m's entries, most recently used first: its
	// next is the newest, its prev the oldest.
	lru limiterEntry[K]
}

type limiterEntry[K comparable] struct {
	key        K
	lim        *rate.Limiter
	prev, next *limiterEntry[K]
}

// evictCandidates is how many of the least recently used entries an
// eviction looks at for one whose bucket is full.
const evictCandidates = 4

// NewLimiters makes a table of at most maxEntries limiters, each allowing
// perSecond requests with bursts of burst.
func NewLimiters[K comparable](perSecond float64, burst, maxEntries int) *Limiters[K] {
	l := &Limiters[K]{rate: rate.Limit(perSecond), burst: burst, max: maxEntries, m: make(map[K]*limiterEntry[K])}
	l.lru.prev, l.lru.next = &l.lru, &l.lru
	return l
}

// Get is key's limiter, made (and another evicted when full) on first use.
func (l *Limiters[K]) Get(key K, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.m[key]; ok {
		l.unlink(e)
		l.pushFront(e)
		return e.lim
	}
	if len(l.m) >= l.max {
		l.evict(now)
	}
	e := &limiterEntry[K]{key: key, lim: rate.NewLimiter(l.rate, l.burst)}
	l.m[key] = e
	l.pushFront(e)
	return e.lim
}

// evict drops one entry: the least recently used whose bucket is full
// among the evictCandidates oldest, else the oldest.
func (l *Limiters[K]) evict(now time.Time) {
	victim := l.lru.prev
	for e, n := l.lru.prev, 0; e != &l.lru && n < evictCandidates; e, n = e.prev, n+1 {
		if e.lim.TokensAt(now) >= float64(l.burst) {
			victim = e
			break
		}
	}
	if victim == &l.lru {
		return
	}
	l.unlink(victim)
	delete(l.m, victim.key)
}

func (l *Limiters[K]) unlink(e *limiterEntry[K]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (l *Limiters[K]) pushFront(e *limiterEntry[K]) {
	e.prev, e.next = &l.lru, l.lru.next
	l.lru.next.prev = e
	l.lru.next = e
}

// Rate is each limiter's rate, in requests a second.
func (l *Limiters[K]) Rate() float64 { return float64(l.rate) }

// Burst is each limiter's bucket: the requests a key may make at once.
func (l *Limiters[K]) Burst() int { return l.burst }
