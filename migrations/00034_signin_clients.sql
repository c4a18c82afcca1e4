-- The sign-in throttle's turn-taking (docs/security.md, "Sign-in
-- throttle"): one row per client address that tried to sign in lately.
-- An attempt upserts its client's row, which locks it for the rest of the
-- attempt's transaction, so the attempts of one client count and record
-- their failures one at a time. It replaces a lock keyed by a hash of the
-- typed email: a key a client could aim at a lock the platform needs.
-- Rows older than the throttle's window decide nothing and are pruned with
-- the failures. Not org-scoped: a client address is not a tenant's data.

-- +goose Up
CREATE TABLE login_clients (
    client_ip  text        PRIMARY KEY CHECK (char_length(client_ip) <= 64),
    last_try   timestamptz NOT NULL
);

-- +goose Down
DROP TABLE login_clients;
