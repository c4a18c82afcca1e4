-- Field data entered through screens, CSV import and the API (docs/field-data.md):
-- external references for upserts, the job fields a dispatcher needs, and
-- change times. Length limits are enforced by the application with a
-- message naming the field; the checks below are the last line for the new
-- columns only, so existing rows never block the migration.

-- +goose Up
-- external_ref: the integrator's own key, unique per org when set. NULL
-- means "none"; '' is refused so one org can't hold two "empty" refs.
ALTER TABLE technicians
    ADD COLUMN external_ref text
        CONSTRAINT technicians_external_ref_format CHECK (length(external_ref) BETWEEN 1 AND 100),
    ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
CREATE UNIQUE INDEX technicians_org_external_ref_key ON technicians (org_id, external_ref) WHERE external_ref IS NOT NULL;

ALTER TABLE jobs
    ADD COLUMN external_ref text
        CONSTRAINT jobs_external_ref_format CHECK (length(external_ref) BETWEEN 1 AND 100),
    ADD COLUMN job_type text NOT NULL DEFAULT ''
        CONSTRAINT jobs_job_type_length CHECK (length(job_type) <= 80),
    ADD COLUMN customer_phone text NOT NULL DEFAULT ''
        CONSTRAINT jobs_customer_phone_length CHECK (length(customer_phone) <= 40),
    ADD COLUMN emergency boolean NOT NULL DEFAULT false,
    ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
CREATE UNIQUE INDEX jobs_org_external_ref_key ON jobs (org_id, external_ref) WHERE external_ref IS NOT NULL;
-- The day board and the API filter one technician's jobs.
CREATE INDEX jobs_org_technician_idx ON jobs (org_id, technician_id, arrival_start);

-- +goose Down
DROP INDEX jobs_org_technician_idx;
DROP INDEX jobs_org_external_ref_key;
ALTER TABLE jobs
    DROP COLUMN updated_at,
    DROP COLUMN emergency,
    DROP COLUMN customer_phone,
    DROP COLUMN job_type,
    DROP COLUMN external_ref;
DROP INDEX technicians_org_external_ref_key;
ALTER TABLE technicians
    DROP COLUMN updated_at,
    DROP COLUMN external_ref;
