-- 037: migration 033 re-created api_tokens_immutable to guard the new name and expires_at, but
-- without the WHEN clause every row guard has had since 023 (the guard ran on every update of a
-- token, last_used_at included) and without issued_to (guarded since 013). This puts both back:
-- every column the token was issued with is immutable, and the guard is called only when one of
-- them changes. Merged migrations are never edited.
drop trigger api_tokens_immutable on api_tokens;
create trigger api_tokens_immutable before update on api_tokens
  for each row when (
    old.id is distinct from new.id or old.user_id is distinct from new.user_id
    or old.prefix is distinct from new.prefix or old.token_hash is distinct from new.token_hash
    or old.scopes is distinct from new.scopes or old.capabilities is distinct from new.capabilities
    or old.created_at is distinct from new.created_at or old.issued_to is distinct from new.issued_to
    or old.name is distinct from new.name or old.expires_at is distinct from new.expires_at)
  execute function svc_immutable_columns(
    'id', 'user_id', 'prefix', 'token_hash', 'scopes', 'capabilities', 'created_at', 'issued_to', 'name', 'expires_at');
