-- 012: browser sign-in (issue 15): server-side sessions and operator-issued one-time sign-in links.
-- Merged migrations are never edited: change the schema with a new numbered file.

-- A signed-in browser. The cookie holds a random secret; only its sha256 is stored, so a read of
-- this table signs nobody in. A session ends at expires_at or when revoked (sign out, sign out
-- everywhere); last_seen_at is refreshed at most every few minutes, not on every request.
create table sessions (
  id text primary key constraint sessions_id_format check (id ~ '^ses_[0-9a-z]{10,32}$'),
  user_id text not null references users (id),
  secret_hash text not null unique constraint sessions_secret_hash_format check (secret_hash ~ '^sha256:[0-9a-f]{64}$'),
  user_agent text constraint sessions_user_agent_length check (length(user_agent) <= 512),
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  constraint sessions_expires_after_created check (expires_at > created_at)
);
create index sessions_user on sessions (user_id) where revoked_at is null;
create trigger sessions_immutable before update on sessions
  for each row execute function svc_immutable_columns('id', 'user_id', 'secret_hash', 'user_agent', 'created_at', 'expires_at');
create trigger sessions_write_once before update on sessions
  for each row execute function svc_write_once('revoked_at');

-- A one-time sign-in link an operator issued (`svc-server user login-link`): single use, short
-- lived, only the sha256 of its secret stored.
create table sign_in_links (
  id text primary key constraint sign_in_links_id_format check (id ~ '^sil_[0-9a-z]{10,32}$'),
  user_id text not null references users (id),
  token_hash text not null unique constraint sign_in_links_hash_format check (token_hash ~ '^sha256:[0-9a-f]{64}$'),
  -- Where the browser goes once signed in: a path on this service, or null for the settings page.
  return_to text constraint sign_in_links_return_to check (return_to ~ '^/[^/\\]' or return_to = '/'),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  constraint sign_in_links_expires_after_created check (expires_at > created_at)
);
create trigger sign_in_links_immutable before update on sign_in_links
  for each row execute function svc_immutable_columns('id', 'user_id', 'token_hash', 'return_to', 'created_at', 'expires_at');
create trigger sign_in_links_write_once before update on sign_in_links
  for each row execute function svc_write_once('used_at');
