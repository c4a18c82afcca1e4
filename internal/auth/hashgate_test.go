package auth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil"
)

// Two slots and room for one in the queue: the third caller waits and gets
// the slot given back, a fourth while it waits is turned away at once, and
// a queued caller whose request ends stops waiting.
func TestHashGate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	g := NewHashGate(2, 1, time.Hour)
	r1, err := g.Acquire(ctx)
	require.NoError(t, err)
	r2, err := g.Acquire(ctx)
	require.NoError(t, err)

	got := make(chan error, 1)
	go func() {
		r3, err := g.Acquire(ctx)
		if err == nil {
			r3()
		}
		got <- err
	}()
	require.Eventually(t, func() bool { return g.waiting.Load() == 1 }, testutil.Settle, time.Millisecond)
	_, err = g.Acquire(ctx)
	require.ErrorIs(t, err, ErrBusy, "the queue is full")
	require.Equal(t, int64(1), g.waiting.Load(), "a refused caller leaves no trace in the queue")

	r1()
	require.NoError(t, <-got, "the queued caller got the slot given back")
	require.Zero(t, g.waiting.Load())

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = g.Acquire(cancelled) // the slot r1 held is free again
	require.NoError(t, err)
	_, err = g.Acquire(cancelled)
	require.ErrorIs(t, err, context.Canceled, "full: a request that has ended stops waiting")
	r2()
}

// A queued caller waits at most maxWait, then is turned away.
func TestHashGateWaitsAtMostMaxWait(t *testing.T) {
	t.Parallel()
	g := NewHashGate(1, 5, time.Millisecond)
	release, err := g.Acquire(t.Context())
	require.NoError(t, err)
	defer release()
	_, err = g.Acquire(t.Context())
	require.ErrorIs(t, err, ErrBusy)
	require.Zero(t, g.waiting.Load())
}
