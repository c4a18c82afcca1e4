-- Uploaded CSV import files, kept for a short time between the preview and
-- the save, so the save imports exactly the file that was previewed
-- (docs/field-data.md, "CSV import"). A row belongs to one org and one user;
-- it expires 30 minutes after upload, is deleted by the save that uses it,
-- and a user keeps at most a few per org.

-- +goose Up
CREATE TABLE csv_uploads (
    id         text        PRIMARY KEY,  -- random, 128 bits; the URL carries it
    org_id     bigint      NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       text        NOT NULL CONSTRAINT csv_uploads_kind CHECK (kind IN ('technicians', 'jobs')),
    filename   text        NOT NULL CONSTRAINT csv_uploads_filename_length CHECK (length(filename) <= 255),
    content    bytea       NOT NULL CONSTRAINT csv_uploads_content_size CHECK (length(content) <= 5242880),
    sha256     bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX csv_uploads_owner_idx ON csv_uploads (org_id, user_id, created_at);
CREATE INDEX csv_uploads_expires_idx ON csv_uploads (expires_at);

-- +goose Down
DROP TABLE csv_uploads;
