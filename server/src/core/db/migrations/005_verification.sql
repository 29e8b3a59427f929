-- 005: VerificationRuns and their stage results (spec 2.4 and 3), the deployment's sandbox runtime
-- bindings and the custom sandbox images it provisions.
-- Merged migrations are never edited: change the schema with a new numbered file.

-- Statuses only move forward: queued, running, finished. TG_ARGV[0] names the status column.
create function svc_forward_status() returns trigger language plpgsql as $$
declare
  rank_old integer := array_position(array['queued', 'running', 'finished'], to_jsonb(old) ->> tg_argv[0]);
  rank_new integer := array_position(array['queued', 'running', 'finished'], to_jsonb(new) ->> tg_argv[0]);
begin
  if rank_new < rank_old then
    raise exception '%.% moves forward only (% to %)', tg_table_name, tg_argv[0],
      to_jsonb(old) ->> tg_argv[0], to_jsonb(new) ->> tg_argv[0] using errcode = 'SV007';
  end if;
  return new;
end $$;

create table verification_runs (
  id text primary key constraint verification_runs_id_format check (id ~ '^vrn_[0-9a-z]{10,32}$'),
  submission_id text not null references submissions (id),
  problem_revision_id text not null references problem_revisions (id),
  verifier_contract_id text not null references verifier_contracts (id),
  trigger text not null constraint verification_runs_trigger check (trigger in ('submission', 'rerun', 'manual')),
  -- {artifacts: [{role, artifact_id, content_hash, size_bytes}], summary_included}
  inputs jsonb not null,
  status text not null default 'queued' constraint verification_runs_status check (status in ('queued', 'running', 'finished')),
  result text constraint verification_runs_result check (result in ('verified', 'refuted', 'inconclusive', 'error')),
  score double precision,
  evidence_md text not null default '' constraint verification_runs_evidence check (length(evidence_md) <= 20000),
  -- Who asked for a rerun or a manual run; null for the automatic run of a Submission.
  requested_by_user_id text references users (id),
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  -- {revoked_at, revoked_by_user_id, reason_md}: write-once.
  revocation jsonb,
  -- Liveness of the worker executing it: refreshed while it runs, so a run whose worker died is
  -- found (heartbeat too old) and executed again; `restarts` counts stages found half-run, and
  -- past a bound the run finishes `error` instead of killing worker after worker.
  heartbeat_at timestamptz,
  restarts integer not null default 0,
  constraint verification_runs_finished check ((status = 'finished') = (finished_at is not null)),
  constraint verification_runs_result_when_finished check ((result is null) = (status <> 'finished')),
  constraint verification_runs_score check (score is null or result = 'verified')
);
create index verification_runs_submission on verification_runs (submission_id, created_at);
create index verification_runs_unfinished on verification_runs (created_at) where status <> 'finished';
create trigger verification_runs_immutable before update on verification_runs
  for each row execute function svc_immutable_columns(
    'id', 'submission_id', 'problem_revision_id', 'verifier_contract_id', 'trigger', 'inputs',
    'requested_by_user_id', 'created_at');
create trigger verification_runs_forward before update on verification_runs
  for each row execute function svc_forward_status('status');
create trigger verification_runs_finish_once before update on verification_runs
  for each row execute function svc_write_once('finished_at', 'result', 'score', 'evidence_md', 'started_at');
create trigger verification_runs_revoke_once before update on verification_runs
  for each row execute function svc_write_once('revocation');
create trigger verification_runs_no_delete before delete on verification_runs
  for each row execute function svc_no_delete();

-- One row per stage attempted, in Contract order (position 0 first).
create table verification_stage_results (
  verification_run_id text not null references verification_runs (id),
  position integer not null constraint verification_stage_results_position check (position between 0 and 9),
  stage_key text not null constraint verification_stage_results_key check (length(stage_key) between 1 and 40),
  kind text not null constraint verification_stage_results_kind check (kind in ('sandbox', 'review', 'external')),
  status text not null default 'queued'
    constraint verification_stage_results_status check (status in ('queued', 'running', 'finished')),
  result text constraint verification_stage_results_result check (result in ('verified', 'refuted', 'inconclusive', 'error')),
  -- The checker's score (result.json), kept for the run's score when the stage is the scoring one.
  score double precision,
  evidence_md text not null default '' constraint verification_stage_results_evidence check (length(evidence_md) <= 20000),
  -- {sandbox, review, external}: exactly one non-null, matching kind.
  mechanism jsonb,
  -- {content_hash, size_bytes, truncated, redaction}; null when the stage captured no output.
  log jsonb,
  -- The files the checker left under /output/evidence: [{path, content_hash, size_bytes}], each
  -- stored in the blob store; mechanism.sandbox.evidence_hash is the tree digest over them.
  evidence_files jsonb not null default '[]',
  started_at timestamptz,
  finished_at timestamptz,
  primary key (verification_run_id, position),
  unique (verification_run_id, stage_key),
  constraint verification_stage_results_finished check ((status = 'finished') = (finished_at is not null))
);
create trigger verification_stage_results_immutable before update on verification_stage_results
  for each row execute function svc_immutable_columns('verification_run_id', 'position', 'stage_key', 'kind');
create trigger verification_stage_results_forward before update on verification_stage_results
  for each row execute function svc_forward_status('status');
create trigger verification_stage_results_finish_once before update on verification_stage_results
  for each row execute function svc_write_once('finished_at', 'result', 'score', 'evidence_md', 'mechanism', 'started_at');
create trigger verification_stage_results_no_delete before delete on verification_stage_results
  for each row execute function svc_no_delete();

-- A script runtime bound to a real image on this deployment (POST /admin/sandbox-runtimes).
-- Bound once: rebinding would change what every published implementation on it runs.
create table sandbox_runtimes (
  image_ref text primary key constraint sandbox_runtimes_ref check (image_ref ~ '^svc-runtime/[a-z0-9-]+:[0-9]+$'),
  -- `docker`: local_image is an image id (sha256:...); `bwrap`: local_image is a host interpreter path.
  backend text not null constraint sandbox_runtimes_backend check (backend in ('docker', 'bwrap')),
  local_image text not null constraint sandbox_runtimes_local_image check (length(local_image) between 1 and 500),
  bound_by_user_id text references users (id),
  bound_at timestamptz not null default now()
);
create trigger sandbox_runtimes_append_only before update on sandbox_runtimes
  for each row execute function svc_append_only();

-- Custom images pinned by digest: registered at validation, then provisioned (pulled) by the worker.
create table sandbox_images (
  image_ref text primary key constraint sandbox_images_ref check (length(image_ref) between 1 and 500),
  image_digest text not null constraint sandbox_images_digest check (image_digest ~ '^sha256:[0-9a-f]{64}$'),
  state text not null default 'registered'
    constraint sandbox_images_state check (state in ('registered', 'provisioning', 'available', 'provisioning_failed')),
  state_reason text,
  registered_by_user_id text references users (id),
  registered_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
