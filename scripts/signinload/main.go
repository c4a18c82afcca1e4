// Command signinload sends N sign-ins at once to a running `web serve` and
// prints the statuses, latencies and the server's peak memory (VmHWM from
// /proc/PID/status, so Linux only). docs/benchmarks.md, "Sign-in under load", has the figures:
//
//	bin/web create-user -email load@acme.test -password 'load password'
//	bin/web serve -addr 127.0.0.1:18080 & PID=$!
//	go run ./scripts/signinload -pid $PID -email load@acme.test -password 'load password'
package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:18080", "the server's address")
	n := flag.Int("n", 600, "sign-ins sent at once")
	pid := flag.Int("pid", 0, "the server's process id, for its peak memory")
	email := flag.String("email", "", "a user's email")
	pw := flag.String("password", "", "that user's password")
	flag.Parse()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{MaxIdleConnsPerHost: *n, MaxConnsPerHost: 0}, Timeout: 120 * time.Second}
	resp, err := hc.Get(*base + "/login")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	u, _ := url.Parse(*base)
	var token string
	for _, c := range jar.Cookies(u) {
		if strings.Contains(c.Name, "csrf") {
			token = c.Value
		}
	}
	form := url.Values{"email": {*email}, "password": {*pw}, "_csrf": {token}}.Encode()
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	var lat []time.Duration
	for range *n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", *base+"/login", strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for _, c := range jar.Cookies(u) {
				req.AddCookie(c)
			}
			<-start
			t0 := time.Now()
			resp, err := hc.Transport.RoundTrip(req)
			d := time.Since(t0)
			code := -1
			if err == nil {
				code = resp.StatusCode
				resp.Body.Close()
			}
			mu.Lock()
			codes[code]++
			lat = append(lat, d)
			mu.Unlock()
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	total := time.Since(t0)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", *pid))
	hwm := ""
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM") || strings.HasPrefix(l, "VmRSS") {
			hwm += strings.Join(strings.Fields(l), " ") + "; "
		}
	}
	fmt.Printf("n=%d total=%s codes=%v p50=%s p99=%s max=%s %s\n", *n, total.Round(time.Millisecond), codes,
		lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*99/100].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond), hwm)
}
