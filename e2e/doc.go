// Package e2e holds the browser tests: they drive the real web server
// (web.New on a fresh test database, served over real HTTP on 127.0.0.1) in
// headless Chromium through chromedp.
//
// Run them with
//
//	go test ./e2e/ -count=1 -v
//
// They need PostgreSQL (see internal/testdb) and Chromium's headless shell
// at /usr/bin/chromium-headless-shell (Debian package
// "chromium-headless-shell"; CHROMIUM_PATH overrides the path). Without
// Chromium they fail with a message saying so; FIELDBRIEF_SKIP_BROWSER=1 skips
// them instead, for machines that cannot run a browser (not under CI, where
// they fail).
//
// E2E_STEP_TIMEOUT (a Go duration, default 90s) bounds each browser step (an
// action, or a wait for what a page should show); a test as a whole has no
// deadline but go test's -timeout, so a busy machine slows it, never fails it;
// E2E_TRACE=1 logs every step with its time, to see where a slow test waits.
// Tests run three at a time whatever -parallel says (each has its own
// database, server and browser contexts); E2E_PARALLEL=n runs n at a time.
//
// With E2E_SCREENSHOTS=1 (make screenshots) every test saves full-page
// screenshots of the pages it visits to e2e/testdata/screenshots/ (not
// committed); whatever it says, a failing test saves each session's page
// there, named FAIL-<test>-<session>.png.
package e2e
