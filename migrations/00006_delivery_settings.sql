-- Delivery settings: each org's webhook signing secret, and technicians'
-- email addresses for their own day sheets.

-- +goose Up
-- The signing secret lives apart from org_module_configs.config_json, which
-- is audited and shown to admins as JSON: the secret must be in neither.
CREATE TABLE org_webhook_secrets (
    org_id     bigint      PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    secret     text        NOT NULL CONSTRAINT org_webhook_secrets_format CHECK (secret ~ '^whsec_[A-Za-z0-9+/]+={0,2}$'),
    created_at timestamptz NOT NULL DEFAULT now(),
    rotated_at timestamptz
);

-- '' = no address; 254 is the longest address SMTP can carry.
ALTER TABLE technicians ADD COLUMN email text NOT NULL DEFAULT ''
    CONSTRAINT technicians_email_length CHECK (length(email) <= 254);

-- +goose Down
ALTER TABLE technicians DROP COLUMN email;
DROP TABLE org_webhook_secrets;
