-- What the CSV import last set (issue 19 item 5, docs/field-data.md "Updates
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
    org_id        bigint NOT NULL, -- the job's (an org's deletion reaches it through its jobs)
    job_id        bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    technician_id bigint,
    status        text   NOT NULL,
    PRIMARY KEY (org_id, job_id)
);
CREATE INDEX job_import_baselines_job_idx ON job_import_baselines (job_id);

CREATE TABLE technician_import_baselines (
    org_id        bigint  NOT NULL,
    technician_id bigint  NOT NULL,
    active        boolean NOT NULL,
    PRIMARY KEY (org_id, technician_id),
    FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE technician_import_baselines;
DROP TABLE job_import_baselines;
