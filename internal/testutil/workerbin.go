package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// BinEnv names the directory where make test has built cmd/web and
// cmd/worker before any test runs (docs/testing.md, "How make test
// schedules them"): the tests that run the real binaries take them from
// there, instead of each package linking its own.
const BinEnv = "FIELDBRIEF_TEST_BIN"

// workerBinary builds cmd/worker the first time a test of this process asks
// for it: the packages that run the real binary (cmd/worker, chaos, the
// tick's cold-start benchmark) build it once each, not once per test or
// benchmark, and not at all when the tests run select none that needs it.
// Under make test it is already built (BinEnv).
var workerBinary = sync.OnceValues(func() (string, error) {
	if dir := os.Getenv(BinEnv); dir != "" {
		bin := filepath.Join(dir, "worker")
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s=%s: no cmd/worker built there: %w", BinEnv, dir, err)
		}
		return bin, nil
	}
	dir, err := os.MkdirTemp("", "fieldbrief-worker-")
	if err != nil {
		return "", err
	}
	builtDir.Store(&dir)
	bin := filepath.Join(dir, "worker")
	// go test puts the go command that runs it first on PATH.
	if out, err := exec.Command("go", "build", "-o", bin, "fieldbrief/cmd/worker").CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("go build cmd/worker: %v\n%s", err, out)
	}
	return bin, nil
})

// WorkerBinary returns the path of cmd/worker built for this test process.
// A package that uses it calls RemoveWorkerBinary from its TestMain.
func WorkerBinary(tb testing.TB) string {
	tb.Helper()
	bin, err := workerBinary()
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// builtDir is the directory workerBinary made, once it made one.
var builtDir atomic.Pointer[string]

// RemoveWorkerBinary deletes the binary WorkerBinary built, if any.
func RemoveWorkerBinary() {
	if dir := builtDir.Load(); dir != nil {
		_ = os.RemoveAll(*dir)
	}
}
