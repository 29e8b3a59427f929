-- 002: the published records (spec section 2) and the authoring uploads that create them.
-- Immutable records refuse every UPDATE of an immutable column and every DELETE; write-once
-- fields (yanked_at) may be set once. Merged migrations are never edited.

-- Rows of an immutable record are never deleted.
create function svc_no_delete() returns trigger language plpgsql as $$
begin
  raise exception '% rows are permanent and never deleted', tg_table_name
    using errcode = 'SV004', hint = 'archive or yank instead';
end $$;

-- Rows of an append-only table are never changed.
create function svc_append_only() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only', tg_table_name using errcode = 'SV005';
end $$;

-- The secret that signs download and upload URLs, made once per deployment so that every
-- replica and every restart signs alike. SVC_SIGNING_SECRET overrides it.
create table service_secrets (
  name text primary key,
  secret bytea not null constraint service_secrets_length check (octet_length(secret) >= 32),
  created_at timestamptz not null default now()
);

create table campaigns (
  id text primary key constraint campaigns_id_format check (id ~ '^cmp_[0-9a-z]{10,32}$'),
  -- Slugs are global: reconciliation finds a Campaign by slug alone.
  slug text not null unique
    constraint campaigns_slug_format check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 64),
  owner_user_id text not null references users (id),
  title text not null constraint campaigns_title_length check (length(title) between 1 and 200),
  summary text not null,
  description_md text not null default '',
  -- campaign.json's `status` as authored (draft or active); informational.
  authored_status text not null default 'draft'
    constraint campaigns_authored_status check (authored_status in ('draft', 'active')),
  -- Lifecycle: a new Campaign is active; archive_campaign archives it for good.
  status text not null default 'active' constraint campaigns_status check (status in ('active', 'archived')),
  visibility text not null default 'private'
    constraint campaigns_visibility check (visibility in ('private', 'unlisted', 'listed')),
  archived_at timestamptz,
  created_by_upload_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint campaigns_archived check ((status = 'archived') = (archived_at is not null))
);
create trigger campaigns_immutable before update on campaigns
  for each row execute function svc_immutable_columns('id', 'slug', 'owner_user_id', 'created_at', 'created_by_upload_id');
create trigger campaigns_archive_once before update on campaigns
  for each row execute function svc_write_once('archived_at', 'status');
create trigger campaigns_no_delete before delete on campaigns
  for each row execute function svc_no_delete();

-- The text search_problems matches: title (weight A), summary (B) and current statement (C).
create function svc_problem_search_document(title text, summary text, statement text) returns tsvector
  language sql immutable parallel safe as $$
    select setweight(to_tsvector('english', coalesce(title, '')), 'A')
      || setweight(to_tsvector('english', coalesce(summary, '')), 'B')
      || setweight(to_tsvector('english', coalesce(statement, '')), 'C')
  $$;

create table problems (
  id text primary key constraint problems_id_format check (id ~ '^prb_[0-9a-z]{10,32}$'),
  slug text not null unique
    constraint problems_slug_format check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 64),
  owner_user_id text not null references users (id),
  campaign_id text references campaigns (id),
  structure text not null constraint problems_structure check (structure in ('SOLVE', 'BENCHMARK', 'DISCOVERY')),
  title text not null constraint problems_title_length check (length(title) between 1 and 200),
  summary text not null,
  priority_weight double precision not null default 0.5
    constraint problems_priority_weight check (priority_weight between 0 and 1),
  status text not null default 'open' constraint problems_status check (status in ('open', 'archived')),
  -- A standalone Problem's visibility. For a Campaign's Problem, the most it may be seen: it is
  -- created 'listed' (no exception) and its effective visibility is the lesser of this and the
  -- Campaign's, so children follow their Campaign unless an exception restricts one of them.
  visibility text not null default 'private'
    constraint problems_visibility check (visibility in ('private', 'unlisted', 'listed')),
  -- The current revision: the highest-numbered one; kept here so reads need no aggregate.
  current_revision_id text,
  current_revision_number integer not null default 0,
  -- The task components of the current revision (server/src/authoring/task-fingerprint.ts),
  -- recorded at publication so reconciliation compares without re-deriving old plans.
  task_components jsonb not null default '{}',
  task_fingerprint text,
  -- Title, summary and the current statement, weighted A, B, C, for search_problems.
  search_document tsvector not null default ''::tsvector,
  -- Attempts started and not ended, on any revision; maintained by the attempts work.
  active_attempts integer not null default 0 constraint problems_active_attempts check (active_attempts >= 0),
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint problems_archived check ((status = 'archived') = (archived_at is not null))
);
create index problems_campaign on problems (campaign_id, priority_weight desc, slug);
create index problems_search on problems using gin (search_document);
create index problems_listed on problems (visibility, status, priority_weight desc, slug);
create index problems_owner on problems (owner_user_id);
create trigger problems_immutable before update on problems
  for each row execute function svc_immutable_columns('id', 'slug', 'owner_user_id', 'campaign_id', 'structure', 'created_at');
create trigger problems_archive_once before update on problems
  for each row execute function svc_write_once('archived_at', 'status');
create trigger problems_no_delete before delete on problems
  for each row execute function svc_no_delete();

-- Skills are named per publisher; each SkillVersion is an immutable, content-addressed snapshot.
create table skills (
  id text primary key constraint skills_id_format check (id ~ '^skl_[0-9a-z]{10,32}$'),
  publisher_user_id text not null references users (id),
  name text not null constraint skills_name_format check (name ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(name) <= 64),
  created_at timestamptz not null default now(),
  unique (publisher_user_id, name)
);
create trigger skills_immutable before update on skills
  for each row execute function svc_immutable_columns('id', 'publisher_user_id', 'name', 'created_at');
create trigger skills_no_delete before delete on skills for each row execute function svc_no_delete();

create table skill_versions (
  id text primary key constraint skill_versions_id_format check (id ~ '^skv_[0-9a-z]{10,32}$'),
  skill_id text not null references skills (id),
  version_number integer not null constraint skill_versions_version_number check (version_number >= 1),
  content_hash text not null constraint skill_versions_hash check (content_hash ~ '^sha256:[0-9a-f]{64}$'),
  name text not null,
  description text not null,
  -- [{path, content_hash, size_bytes, media_type}] in path order; the bytes are blobs.
  files jsonb not null,
  created_by_user_id text not null references users (id),
  created_at timestamptz not null default now(),
  yanked_at timestamptz,
  unique (skill_id, version_number),
  unique (skill_id, content_hash)
);
create trigger skill_versions_immutable before update on skill_versions
  for each row execute function svc_immutable_columns(
    'id', 'skill_id', 'version_number', 'content_hash', 'name', 'description', 'files', 'created_by_user_id', 'created_at');
create trigger skill_versions_yank_once before update on skill_versions
  for each row execute function svc_write_once('yanked_at');
create trigger skill_versions_no_delete before delete on skill_versions
  for each row execute function svc_no_delete();

create table review_protocols (
  id text primary key constraint review_protocols_id_format check (id ~ '^rpt_[0-9a-z]{10,32}$'),
  slug text not null
    constraint review_protocols_slug_format check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 64),
  publisher_user_id text not null references users (id),
  content_hash text not null constraint review_protocols_hash check (content_hash ~ '^sha256:[0-9a-f]{64}$'),
  document jsonb not null,
  created_at timestamptz not null default now(),
  yanked_at timestamptz,
  unique (publisher_user_id, slug),
  -- Content-addressed per publisher: publishing the same document again reuses the record.
  unique (publisher_user_id, content_hash)
);
create trigger review_protocols_immutable before update on review_protocols
  for each row execute function svc_immutable_columns('id', 'publisher_user_id', 'content_hash', 'document', 'created_at');
create trigger review_protocols_yank_once before update on review_protocols
  for each row execute function svc_write_once('yanked_at');
create trigger review_protocols_no_delete before delete on review_protocols
  for each row execute function svc_no_delete();

create table verifier_contracts (
  id text primary key constraint verifier_contracts_id_format check (id ~ '^vct_[0-9a-z]{10,32}$'),
  publisher_user_id text not null references users (id),
  content_hash text not null constraint verifier_contracts_hash check (content_hash ~ '^sha256:[0-9a-f]{64}$'),
  -- The contract as published: a local `./review-protocol.json` replaced by the published rpt_ id.
  document jsonb not null,
  created_at timestamptz not null default now(),
  unique (publisher_user_id, content_hash)
);
create trigger verifier_contracts_immutable before update on verifier_contracts
  for each row execute function svc_immutable_columns('id', 'publisher_user_id', 'content_hash', 'document', 'created_at');
create trigger verifier_contracts_no_delete before delete on verifier_contracts
  for each row execute function svc_no_delete();

create table verifier_implementations (
  id text primary key constraint verifier_implementations_id_format check (id ~ '^vfi_[0-9a-z]{10,32}$'),
  verifier_contract_id text not null references verifier_contracts (id),
  stage_key text not null
    constraint verifier_implementations_stage_key check (stage_key ~ '^[a-z0-9]+(_[a-z0-9]+)*$' and length(stage_key) <= 40),
  version_number integer not null constraint verifier_implementations_version check (version_number >= 1),
  runtime jsonb not null,
  entrypoint jsonb not null,
  limits jsonb not null,
  content_hash text not null constraint verifier_implementations_hash check (content_hash ~ '^sha256:[0-9a-f]{64}$'),
  source jsonb not null default '{"source_uri": null, "source_revision": null, "license": null}',
  program jsonb,
  -- Pending until the verification work runs the stage's conformance fixtures.
  conformance jsonb not null default
    '{"status": "pending", "checked_at": null, "fixtures_total": 0, "fixtures_passed": 0, "failures": [], "differential_against_implementation_id": null}',
  created_by_user_id text not null references users (id),
  created_at timestamptz not null default now(),
  yanked_at timestamptz,
  unique (verifier_contract_id, stage_key, version_number),
  -- Republishing the same implementation for a stage reuses it.
  unique (verifier_contract_id, stage_key, content_hash)
);
create trigger verifier_implementations_immutable before update on verifier_implementations
  for each row execute function svc_immutable_columns(
    'id', 'verifier_contract_id', 'stage_key', 'version_number', 'runtime', 'entrypoint', 'limits',
    'content_hash', 'source', 'program', 'created_by_user_id', 'created_at');
create trigger verifier_implementations_yank_once before update on verifier_implementations
  for each row execute function svc_write_once('yanked_at');
create trigger verifier_implementations_no_delete before delete on verifier_implementations
  for each row execute function svc_no_delete();

create table problem_revisions (
  id text primary key constraint problem_revisions_id_format check (id ~ '^prv_[0-9a-z]{10,32}$'),
  problem_id text not null references problems (id),
  revision_number integer not null constraint problem_revisions_number check (revision_number >= 1),
  statement_md text not null constraint problem_revisions_statement check (length(statement_md) > 0),
  context_md text,
  benchmark jsonb,
  verifier_contract_id text references verifier_contracts (id),
  verifier_input_bindings jsonb not null default '[]',
  sealing jsonb,
  skill_refs jsonb not null default '[]',
  changelog_md text,
  created_by_user_id text not null references users (id),
  created_at timestamptz not null default now(),
  -- The authoring upload that published it (provenance; null for other paths).
  upload_id text,
  unique (problem_id, revision_number),
  constraint problem_revisions_changelog check (revision_number > 1 or changelog_md is null)
);
-- A revision is never edited: every column is immutable.
create trigger problem_revisions_immutable before update on problem_revisions
  for each row execute function svc_append_only();
create trigger problem_revisions_no_delete before delete on problem_revisions
  for each row execute function svc_no_delete();
alter table problems add constraint problems_current_revision
  foreign key (current_revision_id) references problem_revisions (id) deferrable initially deferred;

-- Revision numbers are sequential: the next one is always current + 1.
create function problem_revisions_sequential() returns trigger language plpgsql as $$
declare
  latest integer;
begin
  select coalesce(max(revision_number), 0) into latest from problem_revisions where problem_id = new.problem_id;
  if new.revision_number <> latest + 1 then
    raise exception 'revision % of problem % is out of sequence (latest is %)', new.revision_number, new.problem_id, latest
      using errcode = 'SV006';
  end if;
  return new;
end $$;
create trigger problem_revisions_sequential before insert on problem_revisions
  for each row execute function problem_revisions_sequential();

-- Authoring uploads (spec 3): requested -> uploaded -> validated | invalid -> published.
create table authoring_uploads (
  id text primary key constraint authoring_uploads_id_format check (id ~ '^aup_[0-9a-z]{10,32}$'),
  user_id text not null references users (id),
  state text not null default 'requested'
    constraint authoring_uploads_state check (state in ('requested', 'uploaded', 'validated', 'invalid', 'published')),
  -- What the author declared when requesting the upload; the PUT must match both.
  size_bytes bigint not null constraint authoring_uploads_size check (size_bytes >= 0),
  content_hash text not null constraint authoring_uploads_hash check (content_hash ~ '^sha256:[0-9a-f]{64}$'),
  expires_at timestamptz not null,
  uploaded_at timestamptz,
  validated_at timestamptz,
  -- The last validation: {valid, errors, notes, plan, plan_hash, conformance, images, reconciliation}
  -- and the live snapshot it saw ({campaign, problems}) for publication's re-check.
  validation jsonb,
  plan_hash text,
  published_at timestamptz,
  -- The recorded result publication returned; a republish returns it unchanged.
  publish_result jsonb,
  created_at timestamptz not null default now(),
  constraint authoring_uploads_published check ((state = 'published') = (published_at is not null))
);
create index authoring_uploads_user on authoring_uploads (user_id, created_at desc);
create trigger authoring_uploads_immutable before update on authoring_uploads
  for each row execute function svc_immutable_columns('id', 'user_id', 'size_bytes', 'content_hash', 'expires_at', 'created_at');
create trigger authoring_uploads_publish_once before update on authoring_uploads
  for each row execute function svc_write_once('published_at', 'publish_result', 'state');

-- Package maintenance history (spec 6.4): who did what to which work, through which upload.
create table work_audit (
  id bigint generated always as identity primary key,
  occurred_at timestamptz not null default now(),
  actor_user_id text not null references users (id),
  upload_id text references authoring_uploads (id),
  action text not null,
  subject_kind text not null constraint work_audit_subject_kind check (
    subject_kind in ('campaign', 'problem', 'skill_version', 'review_protocol', 'verifier_contract', 'verifier_implementation')),
  subject_id text not null,
  detail jsonb not null default '{}'
);
create index work_audit_subject on work_audit (subject_id, id);
create trigger work_audit_append_only before update or delete on work_audit
  for each row execute function svc_append_only();
