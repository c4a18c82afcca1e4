-- API tokens whose creator stopped being an admin of the org (or left it)
-- before 00037 made that revoke them: revoked now, with the reason, and
-- each in the audit log as the platform's (docs/security.md, "Access ends
-- with its reason"). Tokens without a creator (web create-token) are the
-- org's and stay. Down does not bring them back: a revocation is for good.

-- +goose Up
WITH revoked AS (
    UPDATE api_tokens t
       SET revoked_at = now(),
           revoked_reason = CASE WHEN m.user_id IS NULL THEN 'creator_removed' ELSE 'creator_not_admin' END
      FROM api_tokens s
      LEFT JOIN memberships m ON m.org_id = s.org_id AND m.user_id = s.created_by
     WHERE t.id = s.id AND t.org_id = s.org_id
       AND t.revoked_at IS NULL AND t.created_by IS NOT NULL
       AND (m.user_id IS NULL OR m.role <> 'admin')
    RETURNING t.id, t.org_id, t.name, t.hint, t.revoked_reason
)
INSERT INTO audit_log (actor_id, actor_email, org_id, action, target, old_value, new_value, reason)
SELECT NULL, 'fieldbrief (migration 00039)', org_id, 'api_token.revoke', 'api token ' || id,
       jsonb_build_object('name', name, 'hint', hint), NULL, revoked_reason
  FROM revoked;

-- +goose Down
SELECT 1;
