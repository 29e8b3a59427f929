-- 007: sealed evaluations (spec 2.3 sealing, 4.1 sealed evaluation tools, 6.2, 6.3).
-- problem_revisions is immutable, so what changes about a sealed evaluation (an early release)
-- lives here, one row per evaluation_id, and reads merge it into each revision's `sealing`.
-- Merged migrations are never edited: change the schema with a new numbered file.

create table sealed_evaluations (
  evaluation_id text primary key constraint sealed_evaluations_id_format check (evaluation_id ~ '^sev_[0-9a-f]{32}$'),
  -- Set once by unseal_reference_inputs; a release reached at sealed_until writes nothing.
  unsealed_at timestamptz,
  -- {unsealed_at, user_id, reason_md}: the public early-release audit event (spec 6.2).
  release_event jsonb,
  created_at timestamptz not null default now(),
  constraint sealed_evaluations_release check ((unsealed_at is null) = (release_event is null))
);
create trigger sealed_evaluations_immutable before update on sealed_evaluations
  for each row execute function svc_immutable_columns('evaluation_id', 'created_at');
create trigger sealed_evaluations_release_once before update on sealed_evaluations
  for each row execute function svc_write_once('unsealed_at', 'release_event');
create trigger sealed_evaluations_no_delete before delete on sealed_evaluations
  for each row execute function svc_no_delete();

-- Every revision of one evaluation (quota, release cascade, affected revisions).
create index problem_revisions_evaluation on problem_revisions ((sealing ->> 'evaluation_id'))
  where sealing is not null;

-- Independent entries (spec 6.3): each Submission entering an independent evaluation and each
-- final-entry nomination, as immutable events with increasing ids (get_final_entry's cursors).
create table final_entry_events (
  id bigint generated always as identity primary key,
  evaluation_id text not null constraint final_entry_events_evaluation check (evaluation_id ~ '^sev_[0-9a-f]{32}$'),
  problem_revision_id text not null references problem_revisions (id),
  user_id text not null references users (id),
  submission_id text not null references submissions (id),
  -- `entry`: the Submission was made; `nomination`: its submitter named it the final entry.
  kind text not null constraint final_entry_events_kind check (kind in ('entry', 'nomination')),
  created_at timestamptz not null default now()
);
create index final_entry_events_user on final_entry_events (evaluation_id, user_id, kind, id);
create index final_entry_events_all on final_entry_events (evaluation_id, kind, id);
create trigger final_entry_events_append_only before update on final_entry_events
  for each row execute function svc_append_only();
create trigger final_entry_events_no_delete before delete on final_entry_events
  for each row execute function svc_no_delete();

-- The quota counts a user's Submissions on every revision of an evaluation in a rolling window.
create index submissions_user_created on submissions (user_id, created_at);
