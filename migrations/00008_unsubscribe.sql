-- One-click unsubscribe (RFC 8058): the key that signs unsubscribe links,
-- and the addresses that asked an org to stop mailing them.

-- +goose Up
-- Keys the web and worker processes share through the database, so that a
-- link the worker signs is one the web can verify without any configuration.
-- Each is created at random on first use (see orgs.Store.signingKey).
CREATE TABLE app_signing_keys (
    name       text        PRIMARY KEY,
    key        bytea       NOT NULL CONSTRAINT app_signing_keys_length CHECK (length(key) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- An address that unsubscribed from an org's briefings. Matched ignoring
-- case, as the recipient lists are; the delivery worker skips these
-- addresses, technicians included.
CREATE TABLE email_suppressions (
    org_id     bigint      NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    email      text        NOT NULL CONSTRAINT email_suppressions_email_length CHECK (length(email) BETWEEN 1 AND 254),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX email_suppressions_org_email_key ON email_suppressions (org_id, lower(email));

-- +goose Down
DROP TABLE email_suppressions;
DROP TABLE app_signing_keys;
