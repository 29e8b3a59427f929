-- 004: a participant's work on a Problem (spec 1.2 and 4.1): Attempts, their Notes, the Artifacts
-- they upload and the Submissions that bind Artifacts to the Contract's roles.
-- Merged migrations are never edited: change the schema with a new numbered file.

-- Semantic note search ranks by trigram similarity (a local method, no model).
create extension if not exists pg_trgm;

create table attempts (
  id text primary key constraint attempts_id_format check (id ~ '^att_[0-9a-z]{10,32}$'),
  problem_id text not null references problems (id),
  -- The revision the Attempt pinned; it keeps it whatever revisions come later (spec 9.1).
  problem_revision_id text not null references problem_revisions (id),
  user_id text not null references users (id),
  -- The Organization the work is attributed to (review conflicts exclude its members); null: none.
  organization_id text references organizations (id),
  -- A continuation carries on an ended Attempt of the same user and Problem; each has one successor.
  continues_attempt_id text unique references attempts (id),
  status text not null default 'active' constraint attempts_status check (status in ('active', 'ended')),
  -- How the participant ended it; null while active.
  outcome text constraint attempts_outcome check (outcome in ('solved', 'partial', 'gave_up', 'abandoned')),
  started_at timestamptz not null default now(),
  ended_at timestamptz,
  constraint attempts_ended check ((status = 'ended') = (ended_at is not null) and (outcome is null) = (ended_at is null))
);
create index attempts_user on attempts (user_id, started_at desc);
create index attempts_problem on attempts (problem_id, started_at desc);
create index attempts_active on attempts (problem_id) where status = 'active';
-- The caller's Attempts on one Problem (attempt_summary, start_attempt's hint, list_my_attempts).
create index attempts_user_problem on attempts (user_id, problem_id, started_at desc);
create trigger attempts_immutable before update on attempts
  for each row execute function svc_immutable_columns(
    'id', 'problem_id', 'problem_revision_id', 'user_id', 'organization_id', 'continues_attempt_id', 'started_at');
create trigger attempts_end_once before update on attempts
  for each row execute function svc_write_once('ended_at', 'status', 'outcome');
create trigger attempts_no_delete before delete on attempts
  for each row execute function svc_no_delete();

-- problems.active_attempts (search's least_attempted order) follows the Attempts table.
create function attempts_count_active() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' and new.status = 'active' then
    update problems set active_attempts = active_attempts + 1 where id = new.problem_id;
  elsif tg_op = 'UPDATE' and old.status = 'active' and new.status = 'ended' then
    update problems set active_attempts = active_attempts - 1 where id = new.problem_id;
  end if;
  return new;
end $$;
create trigger attempts_active_count after insert or update of status on attempts
  for each row execute function attempts_count_active();

create table notes (
  id text primary key constraint notes_id_format check (id ~ '^nte_[0-9a-z]{10,32}$'),
  attempt_id text not null references attempts (id),
  -- Denormalized from the Attempt so searches filter without a join.
  user_id text not null references users (id),
  problem_id text not null references problems (id),
  -- `summary` is the note end_attempt requires; `note` is any other.
  kind text not null default 'note' constraint notes_kind check (kind in ('note', 'summary')),
  body_md text not null constraint notes_body check (length(body_md) between 1 and 20000),
  search_document tsvector generated always as (to_tsvector('english', body_md)) stored,
  created_at timestamptz not null default now()
);
create index notes_attempt on notes (attempt_id, created_at);
-- search_notes reads only the caller's own notes.
create index notes_user on notes (user_id, created_at desc);
create index notes_search on notes using gin (search_document);
create index notes_trigram on notes using gin (body_md gin_trgm_ops);
create trigger notes_append_only before update on notes for each row execute function svc_append_only();
create trigger notes_no_delete before delete on notes for each row execute function svc_no_delete();

create table artifacts (
  id text primary key constraint artifacts_id_format check (id ~ '^art_[0-9a-z]{10,32}$'),
  attempt_id text not null references attempts (id),
  user_id text not null references users (id),
  filename text not null constraint artifacts_filename check (length(filename) between 1 and 255),
  media_type text not null constraint artifacts_media_type check (length(media_type) between 1 and 120),
  -- The bytes live in the blob store under this hash.
  content_hash text not null constraint artifacts_hash check (content_hash ~ '^sha256:[0-9a-f]{64}$'),
  size_bytes bigint not null constraint artifacts_size check (size_bytes >= 0),
  -- reuse_artifact: the live Artifact of an earlier Attempt this one carries by reference.
  reused_from_artifact_id text references artifacts (id),
  created_at timestamptz not null default now(),
  -- Withdrawn Artifacts are never served again (downloads answer 410); the row stays.
  withdrawn_at timestamptz
);
create index artifacts_attempt on artifacts (attempt_id, created_at);
create trigger artifacts_immutable before update on artifacts
  for each row execute function svc_immutable_columns(
    'id', 'attempt_id', 'user_id', 'filename', 'media_type', 'content_hash', 'size_bytes',
    'reused_from_artifact_id', 'created_at');
create trigger artifacts_withdraw_once before update on artifacts
  for each row execute function svc_write_once('withdrawn_at');
create trigger artifacts_no_delete before delete on artifacts
  for each row execute function svc_no_delete();

-- A signed-PUT artifact upload (request_artifact_upload): the declared identity, until the bytes
-- arrive and become an Artifact.
create table artifact_uploads (
  id text primary key constraint artifact_uploads_id_format check (id ~ '^aru_[0-9a-z]{10,32}$'),
  attempt_id text not null references attempts (id),
  user_id text not null references users (id),
  filename text not null constraint artifact_uploads_filename check (length(filename) between 1 and 255),
  media_type text not null constraint artifact_uploads_media_type check (length(media_type) between 1 and 120),
  content_hash text not null constraint artifact_uploads_hash check (content_hash ~ '^sha256:[0-9a-f]{64}$'),
  size_bytes bigint not null constraint artifact_uploads_size check (size_bytes >= 0),
  expires_at timestamptz not null,
  -- Set when the PUT completes: the Artifact the bytes became.
  artifact_id text references artifacts (id),
  created_at timestamptz not null default now()
);
create trigger artifact_uploads_complete_once before update on artifact_uploads
  for each row execute function svc_write_once('artifact_id');

create table submissions (
  id text primary key constraint submissions_id_format check (id ~ '^sub_[0-9a-z]{10,32}$'),
  attempt_id text not null references attempts (id),
  user_id text not null references users (id),
  problem_id text not null references problems (id),
  problem_revision_id text not null references problem_revisions (id),
  -- [{role, artifact_id, content_hash, size_bytes}] in the Contract's role order.
  artifacts jsonb not null,
  status text not null default 'active' constraint submissions_status check (status in ('active', 'withdrawn')),
  created_at timestamptz not null default now(),
  withdrawn_at timestamptz,
  constraint submissions_withdrawn check ((status = 'withdrawn') = (withdrawn_at is not null))
);
create index submissions_attempt on submissions (attempt_id, created_at);
create index submissions_problem on submissions (problem_id, created_at);
create index submissions_user_revision on submissions (user_id, problem_revision_id, created_at);
create trigger submissions_immutable before update on submissions
  for each row execute function svc_immutable_columns(
    'id', 'attempt_id', 'user_id', 'problem_id', 'problem_revision_id', 'artifacts', 'created_at');
create trigger submissions_withdraw_once before update on submissions
  for each row execute function svc_write_once('withdrawn_at', 'status');
create trigger submissions_no_delete before delete on submissions
  for each row execute function svc_no_delete();
