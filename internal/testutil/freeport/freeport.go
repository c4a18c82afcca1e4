// Package freeport gives tests a loopback TCP port for a server that binds
// it later (PostgreSQL, PgBouncer, cmd/web), or for an address nobody
// listens on.
//
// Asking the kernel for port 0 and closing the listener is racy: until the
// server binds, the kernel may hand the same port to another bind(0) or to
// an outgoing connection's local end (tests open thousands), and the
// server then fails to start. So the port comes from outside the kernel's
// ephemeral range, which it never hands out by itself, and is held with a
// lock file that every test process of the machine respects, until the
// process that took it exits (docs/testing.md, "Free ports").
package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// held keeps the lock files of this process's ports open: closing one
// would release its port.
var held struct {
	sync.Mutex
	files []*os.File
}

// Take returns a loopback port that no listener has and that no other test
// process takes while this one runs.
func Take() (int, error) {
	lo, hi := candidates()
	if hi < lo {
		return 0, errors.New("freeport: the kernel's ephemeral range leaves no port outside it")
	}
	dir := filepath.Join(os.TempDir(), "fieldbrief-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, fmt.Errorf("freeport: %w", err)
	}
	n := hi - lo + 1
	start := rand.IntN(n)
	for i := range n {
		port := lo + (start+i)%n
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			return 0, fmt.Errorf("freeport: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				continue // another test process has it
			}
			return 0, fmt.Errorf("freeport: lock %s: %w", f.Name(), err)
		}
		// Something outside the suites may listen there.
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			f.Close()
			continue
		}
		ln.Close()
		held.Lock()
		held.files = append(held.files, f)
		held.Unlock()
		return port, nil
	}
	return 0, fmt.Errorf("freeport: every port in %d..%d is taken", lo, hi)
}

// candidates is the range ports are taken from: up to 10,000 ports beside
// the kernel's ephemeral range, on its larger side (below it by default).
func candidates() (lo, hi int) {
	ephLo, ephHi := 32768, 60999 // Linux's default
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			a, errA := strconv.Atoi(f[0])
			z, errZ := strconv.Atoi(f[1])
			if errA == nil && errZ == nil {
				ephLo, ephHi = a, z
			}
		}
	}
	if ephLo-1024 >= 65535-ephHi {
		return max(1024, ephLo-10000), ephLo - 1
	}
	return ephHi + 1, min(65535, ephHi+10000)
}
