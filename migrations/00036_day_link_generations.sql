-- A technician's day links end when their reason ends (docs/security.md,
-- "Access ends with its reason"): when the technician's email changes (the
-- links went to the old address), when they are deactivated, and when an
-- admin revokes them. Deleting a technician already deletes their links
-- (ON DELETE CASCADE, 00031).
--
-- Each technician has a link generation, and each link records the
-- generation it was issued in; a link opens only while the two are equal.
-- Revoking is one row's update however many links there are, and it lasts:
-- reactivating a technician does not lower the generation. A link issued
-- by a transaction that read the old generation is revoked with the rest
-- when the change commits, so no link outlives a change it raced with.
--
-- The trigger raises the generation, as it keeps the version (00026): a
-- form, the board, the API, a CSV import or a statement added later cannot
-- forget to. The generation is bookkeeping, not something a person edits,
-- so an admin's revoke does not make an open edit form stale.

-- +goose Up
ALTER TABLE technicians ADD COLUMN link_generation bigint NOT NULL DEFAULT 0;
ALTER TABLE technician_day_links ADD COLUMN generation bigint NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE FUNCTION fb_technician_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    stamp timestamptz := NEW.updated_at;
    generation bigint := NEW.link_generation;
BEGIN
    IF NEW.email IS DISTINCT FROM OLD.email OR (OLD.active AND NOT NEW.active) THEN
        generation := greatest(generation, OLD.link_generation + 1);
    END IF;
    generation := greatest(generation, OLD.link_generation);
    NEW.version := OLD.version;
    NEW.updated_at := OLD.updated_at;
    NEW.link_generation := OLD.link_generation;
    IF NEW IS DISTINCT FROM OLD THEN
        NEW.version := OLD.version + 1;
    END IF;
    NEW.updated_at := stamp;
    NEW.link_generation := generation;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd

DROP TRIGGER technicians_version ON technicians;
CREATE TRIGGER technicians_version BEFORE UPDATE ON technicians
    FOR EACH ROW EXECUTE FUNCTION fb_technician_update();

-- +goose Down
DROP TRIGGER technicians_version ON technicians;
CREATE TRIGGER technicians_version BEFORE UPDATE ON technicians
    FOR EACH ROW EXECUTE FUNCTION fb_bump_version_stamped();
DROP FUNCTION fb_technician_update();
ALTER TABLE technician_day_links DROP COLUMN generation;
ALTER TABLE technicians DROP COLUMN link_generation;
