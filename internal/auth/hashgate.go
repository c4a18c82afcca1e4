package auth

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// ErrBusy is Acquire's answer when every hashing slot is taken and the
// queue is full, or a queued request waited its limit: the caller answers
// 503 with Retry-After rather than pile up more work.
var ErrBusy = errors.New("too many sign-ins at once")

// HashGate bounds the password hashes running at once. Each argon2id hash
// holds 19 MiB for its whole run, so without a bound a burst of sign-ins
// takes memory (and latency) with it. A few requests may queue for a slot
// for a short while; everyone beyond that is turned away at once, without
// hashing.
type HashGate struct {
	slots   chan struct{}
	waiting atomic.Int64
	queue   int64
	maxWait time.Duration
}

// NewHashGate lets slots hashes run at once and at most queue requests wait
// up to maxWait each for a slot.
func NewHashGate(slots, queue int, maxWait time.Duration) *HashGate {
	return &HashGate{slots: make(chan struct{}, slots), queue: int64(queue), maxWait: maxWait}
}

// Acquire takes a hashing slot, waiting in the queue when there is room,
// and returns the function that gives it back. It fails with ErrBusy, or
// with the context's error when the request ends first.
func (g *HashGate) Acquire(ctx context.Context) (release func(), err error) {
	release = func() { <-g.slots }
	select {
	case g.slots <- struct{}{}:
		return release, nil
	default:
	}
	if g.waiting.Add(1) > g.queue {
		g.waiting.Add(-1)
		return nil, ErrBusy
	}
	defer g.waiting.Add(-1)
	timer := time.NewTimer(g.maxWait)
	defer timer.Stop()
	select {
	case g.slots <- struct{}{}:
		return release, nil
	case <-timer.C:
		return nil, ErrBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
