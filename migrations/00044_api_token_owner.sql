-- Whose an API token is, said by the token itself (docs/security.md,
-- "Access ends with its reason"). A token made by `web create-token`
-- belongs to the org; one an admin made is theirs and ends with their
-- admin role. Until now "the org's" was read from created_by being NULL,
-- which is also what the users foreign key (ON DELETE SET NULL) leaves
-- when the creating user is deleted: their token kept working and the
-- tokens page called it the org's. org_owned is set when the token is
-- made, by a trigger (so also for a token the previous release makes while
-- both run, which does not know the column), and never after; the API
-- admits a token that is the org's or whose creator is an admin of its org
-- today, whoever ended the membership.
--
-- Existing tokens: the org's are those created_by NULL by the system
-- actor ('system', internal/audit); any other live token without a
-- creator lost its user and is revoked, with the reason and an audit
-- entry, as 00039 did for demoted creators. Down keeps revocations.

-- +goose Up
ALTER TABLE api_tokens ADD COLUMN org_owned boolean NOT NULL DEFAULT false;

-- +goose StatementBegin
CREATE FUNCTION fb_api_token_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.org_owned := NEW.created_by IS NULL;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER api_tokens_owner BEFORE INSERT ON api_tokens
    FOR EACH ROW EXECUTE FUNCTION fb_api_token_owner();

UPDATE api_tokens SET org_owned = true WHERE created_by IS NULL AND created_by_email = 'system';
WITH revoked AS (
    UPDATE api_tokens t
       SET revoked_at = now(), revoked_reason = 'creator_removed'
     WHERE t.created_by IS NULL AND NOT t.org_owned AND t.revoked_at IS NULL
    RETURNING t.id, t.org_id, t.name, t.hint, t.revoked_reason
)
INSERT INTO audit_log (actor_id, actor_email, org_id, action, target, old_value, new_value, reason)
SELECT NULL, 'fieldbrief (migration 00044)', org_id, 'api_token.revoke', 'api token ' || id,
       jsonb_build_object('name', name, 'hint', hint), NULL, revoked_reason
  FROM revoked;

-- +goose Down
DROP TRIGGER api_tokens_owner ON api_tokens;
DROP FUNCTION fb_api_token_owner();
ALTER TABLE api_tokens DROP COLUMN org_owned;
