package fieldimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/tenants"
)

// RememberedPerKind bounds import_columns: an org keeps the mappings of
// its 50 most recently chosen header rows per kind (migration 00027).
const RememberedPerKind = 50

// RememberMapping keeps the admin's choice of columns for header rows
// like the upload's, for the org's next import of the same kind. The
// mapping must fit the header (every field, each column at most once).
func (s *Store) RememberMapping(ctx context.Context, up Upload, m Mapping, now time.Time) error {
	tab, err := readContent(up.Content, up.Kind, ReadOptions{Delimiter: up.Delimiter})
	if err != nil {
		return err
	}
	return s.remember(ctx, up, tab, m, now)
}

var errColumnsUnchosen = errors.New("a column of the file has neither a field nor \"don't import\"")

// IsColumnsUnchosen is a columns step that left a column of the file
// without a choice.
func IsColumnsUnchosen(err error) bool { return errors.Is(err, errColumnsUnchosen) }

// ChooseColumns is the columns step's answer (docs/field-data.md, "The
// file"): m, and the file's columns the admin chose not to import. Every
// named column of the file must be one or the other, so that none is
// dropped unseen; the choice is remembered like RememberMapping's.
func (s *Store) ChooseColumns(ctx context.Context, up Upload, m Mapping, skipped []int, now time.Time) error {
	tab, err := readContent(up.Content, up.Kind, ReadOptions{Delimiter: up.Delimiter})
	if err != nil {
		return err
	}
	if !m.fits(up.Kind, len(tab.Match.Header)) {
		return errMappingInvalid
	}
	chosen := map[int]bool{}
	for _, i := range m {
		chosen[i] = true
	}
	for _, i := range skipped {
		chosen[i] = true
	}
	// The columns no field took on its own are the step's questions; a
	// column two fields could be, or one the admin moved a field away
	// from, was seen in the step's selects.
	for _, i := range tab.Match.Unused {
		if !chosen[i] {
			return errColumnsUnchosen
		}
	}
	return s.remember(ctx, up, tab, m, now)
}

func (s *Store) remember(ctx context.Context, up Upload, tab Table, m Mapping, now time.Time) error {
	if !m.fits(up.Kind, len(tab.Match.Header)) {
		return errMappingInvalid
	}
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode mapping: %w", err)
	}
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			INSERT INTO import_columns (org_id, kind, header_hash, mapping, updated_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (org_id, kind, header_hash) DO UPDATE SET mapping = EXCLUDED.mapping, updated_at = EXCLUDED.updated_at`,
			up.OrgID, string(up.Kind), tab.Match.HeaderHash, body, now); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			DELETE FROM import_columns WHERE org_id = $1 AND kind = $2 AND header_hash IN (
				SELECT header_hash FROM import_columns WHERE org_id = $1 AND kind = $2
				ORDER BY updated_at DESC, header_hash OFFSET $3)`, up.OrgID, string(up.Kind), RememberedPerKind)
		return err
	})
	if err != nil {
		return fmt.Errorf("remember %s columns for org %d: %w", up.Kind, up.OrgID, err)
	}
	return nil
}

var errMappingInvalid = errors.New("the columns chosen do not fit the file")

// ErrMappingInvalid is a columns form that does not fit its file (a
// column chosen for two fields, one that is not there).
func IsMappingInvalid(err error) bool { return errors.Is(err, errMappingInvalid) }

// rememberedMapping is the org's mapping for a header row, nil if none.
func rememberedMapping(ctx context.Context, q database.Querier, orgID int64, k Kind, hash string) (Mapping, error) {
	var body []byte
	err := q.QueryRow(ctx, `SELECT mapping FROM import_columns WHERE org_id = $1 AND kind = $2 AND header_hash = $3`,
		orgID, string(k), hash).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load %s columns of org %d: %w", k, orgID, err)
	}
	var m Mapping
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("decode %s columns of org %d: %w", k, orgID, err)
	}
	return m, nil
}

// SetDelimiter keeps the delimiter the admin chose for the user's upload
// (0: detect it again).
func (s *Store) SetDelimiter(ctx context.Context, up Upload, d rune) error {
	v := ""
	if d != 0 {
		v = string(d)
	}
	_, err := s.DB.Exec(ctx, `UPDATE csv_uploads SET delimiter = $1 WHERE id = $2 AND org_id = $3 AND user_id = $4`,
		v, up.ID, up.OrgID, up.UserID)
	if err != nil {
		return fmt.Errorf("set delimiter of upload in org %d: %w", up.OrgID, err)
	}
	return nil
}

// readUpload reads an upload as its preview and save do: with its chosen
// delimiter, the org's remembered mapping for its header row, and a cell
// reader in the org's locale.
func readUpload(ctx context.Context, q database.Querier, up Upload) (Table, *cellReader, error) {
	tag, err := tenants.Locale(ctx, q, up.OrgID)
	if err != nil {
		return Table{}, nil, err
	}
	var lookupErr error
	tab, err := readContent(up.Content, up.Kind, ReadOptions{
		Delimiter: up.Delimiter,
		Remembered: func(hash string) Mapping {
			m, err := rememberedMapping(ctx, q, up.OrgID, up.Kind, hash)
			lookupErr = err
			return m
		},
	})
	if err == nil {
		err = lookupErr
	}
	if err != nil {
		return Table{}, nil, err
	}
	return tab, newCellReader(locale.Nearest(tag)), nil
}

// Reading is how a file was read, for the preview (docs/field-data.md, "CSV import"): its encoding and delimiter, the columns step, the ambiguous dates
// and how they were read, the example rows left out.
type Reading struct {
	Encoding       string
	Delimiter      rune
	Detected       bool
	Match          Match
	Order          DateOrder
	Locale         string // the org's locale the dates and times were read in
	Dates          []DateReading
	AmbiguousDates int
	Examples       []int
}

func readingOf(tab Table, cr *cellReader) Reading {
	return Reading{Encoding: tab.Encoding, Delimiter: tab.Delimiter, Detected: tab.Detected, Match: tab.Match,
		Order: cr.order, Locale: cr.loc.Tag(), Dates: cr.ambiguous, AmbiguousDates: cr.ambiguousCount, Examples: tab.Examples}
}

// MaxAliases bounds the suggestions one upload keeps accepted.
const MaxAliases = 50

var errAliasInvalid = errors.New("the technician chosen is not one of this org's")

// IsAliasInvalid is an accepted suggestion that does not name one
// technician of the org (a form made up, or the technician since gone).
func IsAliasInvalid(err error) bool { return errors.Is(err, errAliasInvalid) }

// AcceptSuggestions keeps, with the user's upload, that every row whose
// technician cell is a key of accept names the technician its value
// names (a reference, email or unique name of the org: checked here), so
// that the preview and the save read "T1" as T-1 (docs/field-data.md,
// "Preview, then save"). Nothing is kept when one does not fit.
func (s *Store) AcceptSuggestions(ctx context.Context, up Upload, accept map[string]string) error {
	if up.Kind != Jobs || len(accept) == 0 {
		return errAliasInvalid
	}
	return database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		techs, err := loadTechnicians(ctx, tx, up.OrgID, false)
		if err != nil {
			return err
		}
		for from, to := range accept {
			if from == "" || len(from) > field.MaxExternalRef || to == "" {
				return errAliasInvalid
			}
			if _, _, ok := techs.resolve(to); !ok {
				return errAliasInvalid
			}
		}
		body, err := json.Marshal(accept)
		if err != nil {
			return fmt.Errorf("encode technician aliases: %w", err)
		}
		var n int
		err = tx.QueryRow(ctx, `
			UPDATE csv_uploads SET technician_aliases = technician_aliases || $1::jsonb
			 WHERE id = $2 AND org_id = $3 AND user_id = $4
			RETURNING (SELECT count(*) FROM jsonb_object_keys(technician_aliases))`,
			body, up.ID, up.OrgID, up.UserID).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			return errUploadGone
		}
		if err != nil {
			return fmt.Errorf("accept technician suggestions of upload in org %d: %w", up.OrgID, err)
		}
		if n > MaxAliases {
			return errAliasInvalid
		}
		return nil
	})
}
