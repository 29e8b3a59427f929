-- 011: the OAuth 2.1 authorization server's state (spec 5; docs/security.md). oidc-provider keeps
-- every artefact of the protocol (clients registered dynamically, authorization codes, access
-- and refresh tokens, grants, interactions, its own sessions) as a model: a kind, an id and a
-- JSON payload. One table holds them all. Ids that are secrets (codes, tokens) are stored only
-- as their sha256, and the payload never holds them (the adapter strips `jti`).
-- Merged migrations are never edited: change the schema with a new numbered file.

create table oauth_models (
  -- oidc-provider's model name: AccessToken, AuthorizationCode, RefreshToken, Grant, Client, ...
  kind text not null,
  -- sha256 (hex) of the model's id.
  id_hash text not null constraint oauth_models_id_hash check (id_hash ~ '^[0-9a-f]{64}$'),
  payload jsonb not null,
  -- The grant a code or token belongs to: revoking a grant removes them all.
  grant_id text,
  -- The interaction uid of a Session (findByUid).
  uid text,
  -- The user an artefact was issued for (payload's accountId), for the settings page's listing.
  account_id text,
  expires_at timestamptz,
  -- Set once when a code or a rotated refresh token is used; a second use is detected by it.
  consumed_at timestamptz,
  created_at timestamptz not null default now(),
  -- Updated when an access token is used, at most once a minute (settings page: last use).
  last_used_at timestamptz,
  primary key (kind, id_hash)
);
create index oauth_models_grant on oauth_models (grant_id) where grant_id is not null;
create index oauth_models_uid on oauth_models (uid) where uid is not null;
create index oauth_models_account on oauth_models (account_id, kind) where account_id is not null;
create index oauth_models_expiry on oauth_models (expires_at) where expires_at is not null;

-- `svc login --mcp` (spec 5.6): the command line shows a one-time code, the user's connected
-- agent approves it with authorize_cli, and the command line, polling with its own secret,
-- receives a token of the approver's read/contribute scope plus the user's capabilities.
create table cli_logins (
  -- sha256 (hex) of the secret the command line polls with.
  poll_hash text primary key constraint cli_logins_poll_hash check (poll_hash ~ '^[0-9a-f]{64}$'),
  -- What the user types or pastes: XXXX-XXXX, unambiguous letters and digits.
  user_code text not null unique constraint cli_logins_user_code check (user_code ~ '^[A-Z2-9]{4}-[A-Z2-9]{4}$'),
  client_name text not null constraint cli_logins_client_name check (char_length(client_name) between 1 and 100),
  expires_at timestamptz not null,
  approved_by text references users (id),
  approved_scopes text[],
  approved_at timestamptz,
  -- The token handed out, once.
  token_id text references api_tokens (id),
  redeemed_at timestamptz,
  created_at timestamptz not null default now(),
  constraint cli_logins_approval check ((approved_by is null) = (approved_at is null) and (approved_by is null) = (approved_scopes is null)),
  constraint cli_logins_redeemed check (redeemed_at is null or (approved_at is not null and token_id is not null))
);
create index cli_logins_expiry on cli_logins (expires_at);
