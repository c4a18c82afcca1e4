-- An API token ends when the reason for it ends (docs/security.md, "Access
-- ends with its reason"): a token an admin made is revoked when they stop
-- being an admin of the org or leave it, in the same transaction as that
-- change. revoked_reason says why a token was revoked, for the tokens page:
-- 'admin' (an admin revoked it), 'creator_removed', 'creator_not_admin';
-- NULL for a live token and for those revoked before this migration.
-- A token without a creator (created_by NULL: made by web create-token)
-- belongs to the org.

-- +goose Up
ALTER TABLE api_tokens ADD COLUMN revoked_reason text
    CONSTRAINT api_tokens_revoked_reason_known CHECK (revoked_reason IN ('admin', 'creator_removed', 'creator_not_admin'));

-- +goose Down
ALTER TABLE api_tokens DROP COLUMN revoked_reason;
