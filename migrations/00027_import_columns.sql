-- The CSV import's columns step (docs/field-data.md "CSV
-- import"): the mapping an admin chose from a file's headers to our fields,
-- remembered per org and kind for the next file with the same header row
-- (header_hash: SHA-256 of the normalized header names, in order). mapping
-- is {"field": column index or -1}; it is checked again when used (a
-- mapping that does not fit the header is not used). Bounded: at most 50
-- header rows per org and kind (fieldimport.RememberedPerKind; saving one
-- drops the org's least recently saved beyond that), each at most 4 KB.
--
-- A CSV upload also keeps the delimiter the admin chose on its preview
-- ('' = detected), so that saving reads the file as the preview did.

-- +goose Up
CREATE TABLE import_columns (
    org_id      bigint      NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    kind        text        NOT NULL CONSTRAINT import_columns_kind CHECK (kind IN ('technicians', 'jobs')),
    header_hash text        NOT NULL CONSTRAINT import_columns_hash CHECK (header_hash ~ '^[0-9a-f]{64}$'),
    mapping     jsonb       NOT NULL CONSTRAINT import_columns_mapping_size CHECK (octet_length(mapping::text) <= 4096),
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (org_id, kind, header_hash)
);
CREATE INDEX import_columns_age_idx ON import_columns (org_id, kind, updated_at);

ALTER TABLE csv_uploads ADD COLUMN delimiter text NOT NULL DEFAULT ''
    CONSTRAINT csv_uploads_delimiter CHECK (delimiter IN ('', ',', ';', E'\t'));

-- +goose Down
ALTER TABLE csv_uploads DROP COLUMN delimiter;
DROP TABLE import_columns;
