-- The incremental feed (docs/api.md, "Reading what changed"): jobs and
-- technicians listed by when they last changed, and what was deleted.
--
-- field_tombstones keeps a deleted technician or job's id and reference,
-- written by a trigger whoever deletes it (the API, a screen), so a feed
-- learns of a deletion as it learns of a change. An org's own deletion
-- leaves none (its rows go with it: the trigger finds no org). Owned by
-- internal/field.

-- +goose Up
CREATE INDEX jobs_org_updated_idx ON jobs (org_id, updated_at, id);
CREATE INDEX technicians_org_updated_idx ON technicians (org_id, updated_at, id);

CREATE TABLE field_tombstones (
    org_id       bigint      NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    kind         text        NOT NULL CONSTRAINT field_tombstones_kind CHECK (kind IN ('technician', 'job')),
    id           bigint      NOT NULL,
    external_ref text,
    deleted_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, kind, id)
);
CREATE INDEX field_tombstones_org_deleted_idx ON field_tombstones (org_id, kind, deleted_at, id);

-- +goose StatementBegin
CREATE FUNCTION fb_field_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM orgs WHERE id = OLD.org_id) THEN
        INSERT INTO field_tombstones (org_id, kind, id, external_ref)
        VALUES (OLD.org_id, TG_ARGV[0], OLD.id, OLD.external_ref)
        ON CONFLICT (org_id, kind, id) DO NOTHING;
    END IF;
    RETURN OLD;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER technicians_tombstone AFTER DELETE ON technicians
    FOR EACH ROW EXECUTE FUNCTION fb_field_tombstone('technician');
CREATE TRIGGER jobs_tombstone AFTER DELETE ON jobs
    FOR EACH ROW EXECUTE FUNCTION fb_field_tombstone('job');

-- +goose Down
DROP TRIGGER jobs_tombstone ON jobs;
DROP TRIGGER technicians_tombstone ON technicians;
DROP FUNCTION fb_field_tombstone();
DROP TABLE field_tombstones;
DROP INDEX technicians_org_updated_idx;
DROP INDEX jobs_org_updated_idx;
