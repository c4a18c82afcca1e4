// Package static holds the files served under /static: vendored htmx
// (pinned: static/VERSIONS, docs/dependencies.md "htmx"), the stylesheet and a little JavaScript.
package static

import "embed"

// FS is served at /static.
//
//go:embed *.js *.css favicon.svg favicon.png
var FS embed.FS
