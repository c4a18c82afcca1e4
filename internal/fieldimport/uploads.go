package fieldimport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
)

// Uploaded files wait in csv_uploads between the preview and the save, so
// the save reads the very bytes the preview showed (docs/field-data.md, "CSV
// import"): the browser never sends the file twice, and with several web
// replicas any of them can save it. Storage is bounded: 5 MB a file, at most
// UploadsPerUser per user and org (an upload drops that user's oldest), and
// UploadTTL after which a file is no longer served and is deleted by the
// next upload anywhere.
const (
	UploadTTL      = 30 * time.Minute
	UploadsPerUser = 3
)

// Upload is one stored file.
type Upload struct {
	ID        string
	OrgID     int64
	UserID    int64
	Kind      Kind
	Filename  string
	Content   []byte
	SHA256    [32]byte
	CreatedAt time.Time
	ExpiresAt time.Time
	Delimiter rune // chosen on the preview; 0: detected (migration 00027)
	// Aliases: a jobs file's technician cells the admin accepted a
	// suggestion for, cell → the technician's reference (migration 00052).
	Aliases map[string]string
}

// Store keeps uploads and saves imports.
type Store struct {
	DB *pgxpool.Pool
}

// errUploadGone is an id that is unknown, expired, already saved, or
// someone else's: the same answer for all four, so ids reveal nothing.
var errUploadGone = apperr.Refuse(apperr.NotFound, "import_upload_gone", nil)

// SaveUpload stores content (already read within MaxBytes) for the user in
// the org and returns it with its new random id.
func (s *Store) SaveUpload(ctx context.Context, orgID, userID int64, kind Kind, filename string, content []byte, now time.Time) (Upload, error) {
	if len(content) > MaxBytes {
		return Upload{}, ErrTooLarge
	}
	filename = cleanFilename(filename)
	u := Upload{
		ID: rand.Text(), OrgID: orgID, UserID: userID, Kind: kind, Filename: filename,
		Content: content, SHA256: sha256.Sum256(content), CreatedAt: now, ExpiresAt: now.Add(UploadTTL),
	}
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM csv_uploads WHERE expires_at <= $1`, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			DELETE FROM csv_uploads WHERE org_id = $1 AND id IN (
				SELECT id FROM csv_uploads WHERE org_id = $1 AND user_id = $2
				ORDER BY created_at DESC, id OFFSET $3)`, orgID, userID, UploadsPerUser-1); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO csv_uploads (id, org_id, user_id, kind, filename, content, sha256, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			u.ID, orgID, userID, string(kind), filename, content, u.SHA256[:], now, u.ExpiresAt)
		return err
	})
	if err != nil {
		return Upload{}, fmt.Errorf("store %s upload for org %d: %w", kind, orgID, err)
	}
	return u, nil
}

// LoadUpload returns the user's unexpired upload of kind in the org. Any
// other org's, user's or kind's id is errUploadGone.
func LoadUpload(ctx context.Context, q database.Querier, orgID, userID int64, kind Kind, id string, now time.Time) (Upload, error) {
	u := Upload{ID: id, OrgID: orgID, UserID: userID, Kind: kind}
	var sum []byte
	var delim string
	err := q.QueryRow(ctx, `
		SELECT filename, content, sha256, created_at, expires_at, delimiter, technician_aliases FROM csv_uploads
		 WHERE id = $1 AND org_id = $2 AND user_id = $3 AND kind = $4 AND expires_at > $5`,
		id, orgID, userID, string(kind), now).Scan(&u.Filename, &u.Content, &sum, &u.CreatedAt, &u.ExpiresAt, &delim, &u.Aliases)
	if errors.Is(err, pgx.ErrNoRows) {
		return Upload{}, errUploadGone
	}
	if err != nil {
		return Upload{}, fmt.Errorf("load upload of org %d: %w", orgID, err)
	}
	copy(u.SHA256[:], sum)
	u.Delimiter = ParseDelimiter(delim)
	return u, nil
}

// LoadUpload is LoadUpload on the pool.
func (s *Store) LoadUpload(ctx context.Context, orgID, userID int64, kind Kind, id string, now time.Time) (Upload, error) {
	return LoadUpload(ctx, database.Reader(ctx, s.DB), orgID, userID, kind, id, now)
}

// cleanFilename keeps a client's file name displayable and storable: valid
// UTF-8, no control characters, at most 255 characters.
func cleanFilename(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, "\uFFFD"))
	if r := []rune(name); len(r) > 255 {
		name = string(r[:255])
	}
	if name == "" {
		return "upload.csv"
	}
	return name
}
