-- The CSV import's near-miss technicians
-- (docs/field-data.md, "Preview, then save"): a jobs file's technician cell that names nobody but is
-- close to one technician ("T1" for "T-1", a unique name prefix) is
-- offered as "did you mean"; the admin's one click keeps the answer with
-- the upload, {"T1": "T-1"}, so the preview and the save read every row
-- that says "T1" as T-1. Bounded like the mapping: at most 16 KB.

-- +goose Up
-- The column, then its bound: the two statements a distributed table
-- (Citus) takes, as the earlier CHECKs were added (docs/scaling.md).
ALTER TABLE csv_uploads ADD COLUMN technician_aliases jsonb NOT NULL DEFAULT '{}';
ALTER TABLE csv_uploads ADD CONSTRAINT csv_uploads_technician_aliases_size
    CHECK (octet_length(technician_aliases::text) <= 16384);

-- +goose Down
ALTER TABLE csv_uploads DROP COLUMN technician_aliases;
