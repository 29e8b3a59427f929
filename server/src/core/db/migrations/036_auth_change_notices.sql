-- Bearer tokens are verified from an in-process cache on every replica (issue 36; docs/operations.md,
-- "Token verification"). Anything that can change what a cached token stands for notifies
-- `svc_auth_changed` in the changing transaction, so every replica drops its cache when that
-- transaction commits and the next request is looked up afresh: a revoked token is refused at once
-- on every replica, not after a time-to-live. The notice carries no secret, only the table's name.
-- Writes that change nothing a principal holds (last_used_at) do not notify.
create function svc_notify_auth_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('svc_auth_changed', tg_table_name);
  return null;
end;
$$;

create trigger api_tokens_auth_changed
  after update of revoked_at, scopes, capabilities, user_id or delete on api_tokens
  for each row execute function svc_notify_auth_changed();

create trigger user_capabilities_auth_changed
  after insert or update or delete on user_capabilities
  for each row execute function svc_notify_auth_changed();

create trigger users_auth_changed
  after update of handle, is_admin or delete on users
  for each row execute function svc_notify_auth_changed();

-- OAuth access tokens and grants are revoked by deleting them (oidc-provider's destroy and
-- revokeByGrantId); a re-consent rewrites a grant's payload.
create trigger oauth_models_auth_deleted
  after delete on oauth_models
  for each row when (old.kind in ('AccessToken', 'Grant'))
  execute function svc_notify_auth_changed();
create trigger oauth_models_auth_changed
  after update of payload, expires_at on oauth_models
  for each row when (old.kind in ('AccessToken', 'Grant'))
  execute function svc_notify_auth_changed();
