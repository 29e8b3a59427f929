-- 016: work drafts, publication requests, and draft steps in the work audit history (issue 17,
-- docs/work-drafts.md). Merged migrations are never edited: change the schema with a new numbered file.

-- A draft: a package kept in the service instead of in Git. Its files are blobs named by hash;
-- `version` counts saves, and every edit names the version it read (optimistic concurrency).
create table work_drafts (
  id text primary key constraint work_drafts_id_format check (id ~ '^wdr_[0-9a-z]{10,32}$'),
  owner_user_id text not null references users (id),
  title text not null default '' constraint work_drafts_title check (length(title) <= 200),
  version integer not null default 1 constraint work_drafts_version check (version >= 1),
  status text not null default 'editing'
    constraint work_drafts_status check (status in ('editing', 'invalid', 'prepared', 'published')),
  -- [{path, content_hash, size_bytes}] sorted by path.
  files jsonb not null default '[]',
  content_hash text not null constraint work_drafts_hash check (content_hash ~ '^sha256:[0-9a-f]{64}$'),
  -- The version last prepared, the upload that carried it and its plan_hash.
  prepared_version integer,
  prepared_upload_id text references authoring_uploads (id),
  plan_hash text,
  -- The lint errors and conflicts of the last prepare that failed, else [].
  lint_errors jsonb not null default '[]',
  -- What the draft materialized: {campaign_id, problem_ids}.
  work jsonb,
  published_version integer,
  visibility text not null default 'private'
    constraint work_drafts_visibility check (visibility in ('private', 'unlisted', 'listed')),
  -- The version an administrator approved through a publication request: its revisions are reviewed.
  reviewed_version integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index work_drafts_owner on work_drafts (owner_user_id, updated_at desc, id);
create trigger work_drafts_immutable before update on work_drafts
  for each row execute function svc_immutable_columns('id', 'owner_user_id', 'created_at');
create trigger work_drafts_no_delete before delete on work_drafts
  for each row execute function svc_no_delete();

-- A request to an administrator to publish a pinned draft version or a pinned work snapshot.
-- pending -> approved | rejected | withdrawn, once.
create table publication_requests (
  id text primary key constraint publication_requests_id_format check (id ~ '^pbr_[0-9a-z]{10,32}$'),
  requester_user_id text not null references users (id),
  status text not null default 'pending'
    constraint publication_requests_status check (status in ('pending', 'approved', 'rejected', 'withdrawn')),
  draft_id text references work_drafts (id),
  draft_version integer,
  work_kind text constraint publication_requests_work_kind check (work_kind in ('campaign', 'problem')),
  work_id text,
  work_snapshot text,
  visibility text not null
    constraint publication_requests_visibility check (visibility in ('unlisted', 'listed')),
  note_md text not null default '' constraint publication_requests_note check (length(note_md) <= 20000),
  reviewer_user_id text references users (id),
  reason_md text,
  created_at timestamptz not null default now(),
  resolved_at timestamptz,
  constraint publication_requests_pin check (
    (draft_id is not null and draft_version is not null and work_id is null and work_snapshot is null)
    or (draft_id is null and draft_version is null and work_kind is not null and work_id is not null and work_snapshot is not null)),
  constraint publication_requests_resolved check ((status = 'pending') = (resolved_at is null))
);
-- One pending request per draft and per piece of work.
create unique index publication_requests_pending_draft on publication_requests (draft_id) where status = 'pending';
create unique index publication_requests_pending_work on publication_requests (work_id) where status = 'pending';
create index publication_requests_by_status on publication_requests (status, id);
create trigger publication_requests_immutable before update on publication_requests
  for each row execute function svc_immutable_columns('id', 'requester_user_id', 'draft_id', 'draft_version',
    'work_kind', 'work_id', 'work_snapshot', 'visibility', 'note_md', 'created_at');
create trigger publication_requests_resolve_once before update on publication_requests
  for each row execute function svc_write_once('resolved_at', 'status', 'reviewer_user_id', 'reason_md');
create trigger publication_requests_no_delete before delete on publication_requests
  for each row execute function svc_no_delete();

-- Draft steps join the history: the audit names drafts and publication requests too.
alter table work_audit drop constraint work_audit_subject_kind;
alter table work_audit add constraint work_audit_subject_kind check (
    subject_kind in ('campaign', 'problem', 'skill_version', 'review_protocol', 'verifier_contract',
      'verifier_implementation', 'work_draft', 'publication_request'));
-- The audit trail reads newest first, by actor or by subject.
create index work_audit_actor on work_audit (actor_user_id, id);
