-- Jobs can be deleted (docs/api.md, DELETE /api/v1/jobs/{ref}; the job's
-- page). What references a job:
--
-- * ff_job_changes (the updates' outbox, 00022/00031): its rows are what a
--   sent update said (its email and webhook are read from them again when
--   an admin re-sends one), self-contained (before/after are the job's
--   state as JSON). Until now they went with the job (ON DELETE CASCADE),
--   which would rewrite the history of updates already sent. They now
--   outlive it: the foreign key is dropped and job_id is a plain number,
--   as job_import_baselines' is (job ids are never reused, so a change can
--   only ever describe its own job). They still go with their org, their
--   technician and their update.
-- * job_import_baselines: a statement trigger deletes them with the job
--   (00028), unchanged: a baseline only serves a later import of that job.
-- * field_tombstones and webhook events: written by triggers on the
--   delete (00046, 00048), unchanged.
--
-- Briefing revisions (ff_briefings, their content snapshot) never
-- referenced a job: a deleted job stays in every briefing already made.

-- +goose Up
ALTER TABLE ff_job_changes DROP CONSTRAINT IF EXISTS ff_job_changes_org_id_job_id_fkey;
ALTER TABLE ff_job_changes DROP CONSTRAINT IF EXISTS ff_job_changes_job_id_fkey;

-- +goose Down
DELETE FROM ff_job_changes c WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.org_id = c.org_id AND j.id = c.job_id);
ALTER TABLE ff_job_changes ADD CONSTRAINT ff_job_changes_org_id_job_id_fkey
    FOREIGN KEY (org_id, job_id) REFERENCES jobs (org_id, id) ON DELETE CASCADE;
