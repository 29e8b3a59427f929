-- 013: what the settings page shows of each bearer token (issue 15): when it was last used, and
-- which command line it was handed to. Merged migrations are never edited: change the schema
-- with a new numbered file.

-- Authentication refreshes last_used_at at most once a minute, so a busy token costs one write a
-- minute, not one per request.
alter table api_tokens add column last_used_at timestamptz;

-- The client a `svc login --mcp` token was handed to (its client_name); null for a token an
-- operator issued with `svc-server token issue`. Set at issue, never changed.
alter table api_tokens add column issued_to text
  constraint api_tokens_issued_to_length check (char_length(issued_to) between 1 and 100);
update api_tokens t set issued_to = l.client_name from cli_logins l where l.token_id = t.id;

drop trigger api_tokens_immutable on api_tokens;
create trigger api_tokens_immutable before update on api_tokens
  for each row execute function svc_immutable_columns('id', 'user_id', 'prefix', 'token_hash', 'scopes', 'capabilities', 'created_at', 'issued_to');
