-- The dispatcher role and the jobs search (docs/accounts.md "Roles", docs/field-data.md
-- "Finding work").
--
-- 1. A third role, dispatcher: reads what an admin reads and edits the
--    field data (technicians, jobs, the board, imports); settings, the
--    schedule, delivery, API tokens and members stay the admins'. The rule
--    of who may do what is in Go (tenants.Membership's capabilities); the
--    database only knows the three names, for memberships and invites.
--
-- 2. The jobs search (field.SearchJobs): a trigram index over one text made
--    of a job's customer, address, reference and the digits of its phone,
--    lower-cased, so "smith", "elm st", "J-1042" and "555 0142" all find
--    it with an indexed LIKE '%…%'. pg_trgm ships with the server package on
--    Debian (postgresql-15: /usr/share/postgresql/15/extension/pg_trgm.control)
--    and is a trusted extension since PostgreSQL 13, so a database owner
--    may create it; 00018 already creates it where it can, this migration
--    requires it (the search's speed depends on it).
--    The text is a function so the index and the query say the same
--    expression (an IMMUTABLE SQL function is inlined; lower and
--    regexp_replace are immutable).

-- +goose Up
ALTER TABLE memberships DROP CONSTRAINT memberships_role;
ALTER TABLE memberships ADD CONSTRAINT memberships_role CHECK (role IN ('admin', 'dispatcher', 'member'));
ALTER TABLE invites DROP CONSTRAINT invites_role;
ALTER TABLE invites ADD CONSTRAINT invites_role CHECK (role IN ('admin', 'dispatcher', 'member'));

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- +goose StatementBegin
CREATE FUNCTION jobs_search_text(customer text, address text, external_ref text, customer_phone text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT lower(customer || ' ' || address || ' ' || coalesce(external_ref, '') || ' ' ||
                 regexp_replace(customer_phone, '[^0-9]', '', 'g'))
$$;
-- +goose StatementEnd
CREATE INDEX jobs_search_trgm_idx ON jobs
    USING gin (jobs_search_text(customer, address, external_ref, customer_phone) gin_trgm_ops);

-- +goose Down
DROP INDEX jobs_search_trgm_idx;
DROP FUNCTION jobs_search_text(text, text, text, text);
-- pg_trgm stays: 00018's audit index may use it.
UPDATE memberships SET role = 'member' WHERE role = 'dispatcher';
DELETE FROM invites WHERE role = 'dispatcher';
ALTER TABLE invites DROP CONSTRAINT invites_role;
ALTER TABLE invites ADD CONSTRAINT invites_role CHECK (role IN ('admin', 'member'));
ALTER TABLE memberships DROP CONSTRAINT memberships_role;
ALTER TABLE memberships ADD CONSTRAINT memberships_role CHECK (role IN ('admin', 'member'));
