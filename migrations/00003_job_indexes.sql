-- Indexes for the job runner's two hot statements: the claim, which sorts
-- due jobs by (run_after, id), and the sweep of leases that expired on a
-- job's last attempt, which looks at running jobs by locked_until.

-- +goose Up
DROP INDEX ff_briefing_jobs_claim_idx;
CREATE INDEX ff_briefing_jobs_claim_idx ON ff_briefing_jobs (run_after, id) WHERE state IN ('available', 'running');
CREATE INDEX ff_briefing_jobs_lease_idx ON ff_briefing_jobs (locked_until) WHERE state = 'running';

-- +goose Down
DROP INDEX ff_briefing_jobs_lease_idx;
DROP INDEX ff_briefing_jobs_claim_idx;
CREATE INDEX ff_briefing_jobs_claim_idx ON ff_briefing_jobs (run_after) WHERE state IN ('available', 'running');
