-- A token has a purpose (docs/api.md, "Tokens"): 'read' reads the org's
-- technicians, jobs and briefings and writes nothing (403, code
-- insufficient_scope); 'write' does both. Tokens made before this were
-- read-write, and stay so.

-- +goose Up
ALTER TABLE api_tokens ADD COLUMN scope text NOT NULL DEFAULT 'write'
    CONSTRAINT api_tokens_scope_known CHECK (scope IN ('read', 'write'));

-- +goose Down
ALTER TABLE api_tokens DROP COLUMN scope;
