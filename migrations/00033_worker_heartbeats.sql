-- Worker processes' heartbeats: the lifeline that gives a killed worker's
-- running tasks back within seconds instead of after River's rescuer
-- (docs/worker.md, "Crashes and shutdown"). One row per running
-- process, keyed by its River client ID (the last element of a task's
-- river_job.attempted_by); seen_at is the database's clock, and
-- streak_since the start of the process's unbroken run of heartbeats (a
-- process reaps others only after a long enough run of its own, so the
-- first to reconnect after an outage does not take the others for dead).
-- Not org-scoped:
-- it describes processes, not tenants' data. The previous release neither
-- reads nor writes it, and its workers' tasks are left to River's rescuer.

-- +goose Up
CREATE TABLE ff_worker_heartbeats (
    client_id  text PRIMARY KEY CHECK (char_length(client_id) BETWEEN 1 AND 127),
    started_at timestamptz NOT NULL DEFAULT now(),
    seen_at    timestamptz NOT NULL DEFAULT now(),
    streak_since timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE ff_worker_heartbeats;
