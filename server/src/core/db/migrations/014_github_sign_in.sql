-- 014: Sign in with GitHub (issue 15). Merged migrations are never edited: change the schema with
-- a new numbered file.

-- A user is linked to GitHub by GitHub's numeric user id, which never changes; the login (which a
-- GitHub user can rename) is kept for display and for an operator's invitation: a user with a
-- github_login and no github_user_id yet is invited, and the first sign-in by that login links the
-- id. Once linked, the id never changes.
alter table users add column github_user_id bigint unique
  constraint users_github_user_id_positive check (github_user_id > 0);
alter table users add column github_login text
  constraint users_github_login_format check (github_login ~ '^[A-Za-z0-9-]{1,39}$');
create unique index users_github_login_invited on users (lower(github_login)) where github_user_id is null;
create trigger users_github_user_id_write_once before update on users
  for each row execute function svc_write_once('github_user_id');

-- A started Sign in with GitHub: the `state` sent to GitHub (only its sha256 stored), the browser
-- it was issued to (sha256 of its pre-sign-in cookie secret), the PKCE verifier, where to return.
-- Used once, within 10 minutes; the worker's sweep deletes old rows.
create table github_sign_in_states (
  state_hash text primary key constraint github_sign_in_states_hash check (state_hash ~ '^sha256:[0-9a-f]{64}$'),
  browser_hash text not null constraint github_sign_in_states_browser check (browser_hash ~ '^sha256:[0-9a-f]{64}$'),
  code_verifier text not null constraint github_sign_in_states_verifier check (code_verifier ~ '^[A-Za-z0-9_-]{43,128}$'),
  return_to text constraint github_sign_in_states_return_to check (return_to ~ '^/[^/\\]' or return_to = '/'),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  constraint github_sign_in_states_expiry check (expires_at > created_at)
);
create index github_sign_in_states_expiry on github_sign_in_states (expires_at);
