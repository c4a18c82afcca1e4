// Package migrations holds the goose SQL migrations, embedded so that both
// binaries can migrate the database at start without files on disk.
package migrations

import "embed"

// FS contains every *.sql migration in this directory.
//
//go:embed *.sql
var FS embed.FS
