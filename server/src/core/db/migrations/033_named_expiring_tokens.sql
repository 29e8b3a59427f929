-- Tokens a person makes on /settings (issue 35): a name to tell them apart and an optional
-- expiry, after which the token authenticates nothing. Both are fixed at issue, like the scopes.
alter table api_tokens
  add column name text constraint api_tokens_name_length check (name is null or char_length(name) between 1 and 100),
  add column expires_at timestamptz constraint api_tokens_expires_after_created check (expires_at is null or expires_at > created_at);

drop trigger api_tokens_immutable on api_tokens;
create trigger api_tokens_immutable before update on api_tokens
  for each row execute function svc_immutable_columns(
    'id', 'user_id', 'prefix', 'token_hash', 'scopes', 'capabilities', 'created_at', 'name', 'expires_at');
