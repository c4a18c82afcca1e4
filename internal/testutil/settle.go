package testutil

import "time"

// Settle is how long a test waits for what it set going to show: a
// background task's result, a goroutine reaching a lock, a replica's
// replay, a child process's exit. It guards against a hang; it does not
// measure speed. A busy machine makes such a test slower, never failed,
// and a test that must show something is quick says so with a bound of its
// own, next to the reason (docs/testing.md, "Waiting in tests").
const Settle = 5 * time.Minute
