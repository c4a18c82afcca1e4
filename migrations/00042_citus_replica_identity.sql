-- Citus (docs/scaling.md, "What the real cluster refused"): the
-- rebalancer and isolate_tenant_to_new_shard move a shard online by
-- logical replication, which needs every distributed table to have a
-- replica identity. email_suppressions has none: its only key is unique
-- on an expression (lower(email)), which cannot be one. FULL: the table is
-- small and rarely updated, so logging whole old rows costs nothing that
-- matters, on one node as on Citus. TestCitusReady checks every
-- distributed table has a primary key or a replica identity.

-- +goose Up
ALTER TABLE email_suppressions REPLICA IDENTITY FULL;

-- +goose Down
ALTER TABLE email_suppressions REPLICA IDENTITY DEFAULT;
