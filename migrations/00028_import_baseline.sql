-- What the CSV import last set (docs/field-data.md "Updates
-- keep changes made in fieldbrief"): for each record an import wrote, the
-- values of the fields a person also changes in the app — a job's
-- assignment and status, a technician's active flag — as the file gave
-- them. A re-import compares the record with this: a field that differs
-- from what the import last set was changed in fieldbrief since (the board
-- assigned the job, a technician was deactivated), and the file's value is
-- not applied to it unless the admin ticks "overwrite changes made in
-- fieldbrief". A record without a row here (added by hand, or imported
-- before this migration) has no such change to keep.
--
-- Separate tables, not columns on jobs/technicians: the version trigger
-- (00026) compares every column of those rows, so bookkeeping columns
-- there would move versions (and make open forms stale) on an unchanged
-- re-import. org_id leads every key: every statement names its org.

-- +goose Up
CREATE TABLE job_import_baselines (
    org_id        bigint NOT NULL, -- the job's
    job_id        bigint NOT NULL, -- a job of org_id (written by the import from its own jobs)
    technician_id bigint,
    status        text   NOT NULL,
    PRIMARY KEY (org_id, job_id)
);

-- A job's baseline goes with the job (an org's deletion reaches it through
-- its jobs), by a statement trigger rather than a foreign key: an import
-- writes up to 50,000 baselines in one statement, and a foreign key checks
-- (and key-share locks) the job of each, which cost a 10,000-job save
-- about a fifth of its time. Job ids are never reused, so a baseline can
-- only ever describe its own job.
-- +goose StatementBegin
CREATE FUNCTION fb_forget_job_import_baselines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_import_baselines b USING gone g WHERE b.org_id = g.org_id AND b.job_id = g.id;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER jobs_forget_import_baselines AFTER DELETE ON jobs
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION fb_forget_job_import_baselines();

CREATE TABLE technician_import_baselines (
    org_id        bigint  NOT NULL,
    technician_id bigint  NOT NULL,
    active        boolean NOT NULL,
    PRIMARY KEY (org_id, technician_id),
    FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE technician_import_baselines;
DROP TRIGGER jobs_forget_import_baselines ON jobs;
DROP FUNCTION fb_forget_job_import_baselines();
DROP TABLE job_import_baselines;
