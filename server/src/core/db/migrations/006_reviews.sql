-- 006: ReviewProcesses, their nodes and ReviewAssignments (spec 2.1, 3 and 4.1 review tools).
-- A process runs one snapshot of a ReviewProtocol document over one subject. Its nodes open when
-- their dependencies complete; a review node offers `count` seats that eligible users claim (or
-- the service fills with hosted agents); reduce nodes record their outcome with every step.
-- Time-dependent state (a lapsed hold, a passed deadline) is computed on read from the stored
-- timestamps; the timer jobs only make it durable. Merged migrations are never edited.

create table review_processes (
  id text primary key constraint review_processes_id_format check (id ~ '^rpr_[0-9a-z]{10,32}$'),
  review_protocol_id text not null references review_protocols (id),
  -- The protocol's content_hash and its document, snapshotted: later yanks change nothing here.
  protocol_hash text not null constraint review_processes_hash check (protocol_hash ~ '^sha256:[0-9a-f]{64}$'),
  protocol_snapshot jsonb not null,
  subject_kind text not null
    constraint review_processes_subject_kind check (subject_kind in ('submission', 'problem_proposal', 'campaign_proposal')),
  -- sub_ id for a submission; the proposal's id for the others.
  subject_id text not null,
  -- Who made the subject (the submitter): conflicts and blinding are about them.
  subject_user_id text not null references users (id),
  -- The Organization the subject's Attempt is attributed to, when any.
  subject_organization_id text references organizations (id),
  -- Where the subject lives, for pick_review's filters; null for a campaign proposal's problem.
  problem_id text references problems (id),
  problem_revision_id text references problem_revisions (id),
  campaign_id text references campaigns (id),
  -- The VerificationRun stage that started this process, when a review stage did.
  verification_run_id text references verification_runs (id),
  stage_key text,
  status text not null default 'open' constraint review_processes_status check (status in ('open', 'finished')),
  -- The output reduce node's outcome; null while open and when the process ended without one.
  outcome text constraint review_processes_outcome check (outcome in ('accept', 'reject', 'unresolved')),
  -- `completed` (the output node emitted) or `reviewers_unavailable` (a seat open at a node deadline).
  end_reason text constraint review_processes_end_reason check (end_reason in ('completed', 'reviewers_unavailable')),
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  constraint review_processes_finished check (
    (status = 'finished') = (finished_at is not null) and (status = 'finished') = (end_reason is not null)),
  constraint review_processes_outcome_when_completed check ((outcome is not null) = (end_reason = 'completed')),
  constraint review_processes_stage check ((verification_run_id is null) = (stage_key is null))
);
create unique index review_processes_stage_unique on review_processes (verification_run_id, stage_key)
  where verification_run_id is not null;
create index review_processes_open on review_processes (created_at) where status = 'open';
create index review_processes_problem on review_processes (problem_id, created_at);
create index review_processes_campaign on review_processes (campaign_id, created_at);
create trigger review_processes_immutable before update on review_processes
  for each row execute function svc_immutable_columns(
    'id', 'review_protocol_id', 'protocol_hash', 'protocol_snapshot', 'subject_kind', 'subject_id',
    'subject_user_id', 'subject_organization_id', 'problem_id', 'problem_revision_id', 'campaign_id',
    'verification_run_id', 'stage_key', 'created_at');
create trigger review_processes_finish_once before update on review_processes
  for each row execute function svc_write_once('finished_at', 'status', 'outcome', 'end_reason');
create trigger review_processes_no_delete before delete on review_processes
  for each row execute function svc_no_delete();

-- One row per protocol node, created with the process (status `pending`).
-- pending -> open (dependencies complete and `when` holds) -> completed
-- pending -> skipped (its `when` does not hold, or the process ended first)
create table review_nodes (
  review_process_id text not null references review_processes (id),
  node_id text not null constraint review_nodes_id_format check (node_id ~ '^[a-z][a-z0-9_]{0,39}$'),
  type text not null constraint review_nodes_type check (type in ('review', 'reduce')),
  status text not null default 'pending'
    constraint review_nodes_status check (status in ('pending', 'open', 'completed', 'skipped')),
  -- Review nodes: seats to fill (reviewers.count) and the deadline (opened_at + assignment_timeout_hours).
  seats integer constraint review_nodes_seats check (seats between 1 and 25),
  opened_at timestamptz,
  deadline_at timestamptz,
  completed_at timestamptz,
  -- Reduce nodes: the outcome and every step the reducer took ({op, inputs, steps, outcome}).
  outcome text constraint review_nodes_outcome check (outcome in ('accept', 'reject', 'unresolved')),
  reduction jsonb,
  -- Why a node was skipped (its `when` was not met, or the process ended before it opened).
  skip_reason text,
  primary key (review_process_id, node_id),
  constraint review_nodes_review_seats check ((type = 'review') = (seats is not null)),
  constraint review_nodes_opened check ((opened_at is null) or status in ('open', 'completed')),
  constraint review_nodes_completed check ((status = 'completed') = (completed_at is not null))
);
create index review_nodes_open on review_nodes (deadline_at) where status = 'open' and type = 'review';
create trigger review_nodes_immutable before update on review_nodes
  for each row execute function svc_immutable_columns('review_process_id', 'node_id', 'type', 'seats');
-- svc_write_once keys on its first column: each group is fixed once that column is set.
create trigger review_nodes_open_once before update on review_nodes
  for each row execute function svc_write_once('opened_at', 'deadline_at');
create trigger review_nodes_complete_once before update on review_nodes
  for each row execute function svc_write_once('completed_at', 'status', 'outcome', 'reduction');
create trigger review_nodes_skip_once before update on review_nodes
  for each row execute function svc_write_once('skip_reason', 'status');
create trigger review_nodes_no_delete before delete on review_nodes
  for each row execute function svc_no_delete();

-- A seat taken by one reviewer. Humans claim (hold_until = claimed_at + claim_hold_minutes); the
-- service issues agent assignments itself. claimed -> submitted | declined | lapsed.
-- A `claimed` row whose hold_until has passed is lapsed already: reads treat it so, and claiming
-- or the lapse timer records it.
create table review_assignments (
  id text primary key constraint review_assignments_id_format check (id ~ '^ras_[0-9a-z]{10,32}$'),
  review_process_id text not null references review_processes (id),
  node_id text not null,
  reviewer_kind text not null constraint review_assignments_kind check (reviewer_kind in ('human', 'agent')),
  -- The human reviewer; null for a hosted agent.
  reviewer_user_id text references users (id),
  -- Hosted agents: {provider, model, config} with the provider's defaults resolved (the effective configuration).
  agent jsonb,
  -- The skills supplied with the bundle: [{skill_version_id, requirement}].
  skills_supplied jsonb not null default '[]',
  status text not null default 'claimed'
    constraint review_assignments_status check (status in ('claimed', 'submitted', 'declined', 'lapsed')),
  claimed_at timestamptz not null,
  hold_until timestamptz,
  ended_at timestamptz,
  -- The judgment (status submitted): validated against the snapshot's rubric before it is stored.
  response jsonb,
  rationale_md text,
  citations jsonb,
  confidence double precision constraint review_assignments_confidence check (confidence between 0 and 1),
  -- {provider, model, config}: the declared assistance; recorded, not verified.
  assistance jsonb,
  -- Hosted agents: how many replies failed the rubric, and the last refusal, for operators.
  agent_attempts integer not null default 0,
  agent_last_error text,
  foreign key (review_process_id, node_id) references review_nodes (review_process_id, node_id),
  constraint review_assignments_reviewer check (
    (reviewer_kind = 'human') = (reviewer_user_id is not null) and (reviewer_kind = 'agent') = (agent is not null)),
  constraint review_assignments_ended check ((status = 'claimed') = (ended_at is null)),
  constraint review_assignments_judgment check ((status = 'submitted') = (response is not null))
);
-- One live seat per reviewer per node: a reviewer may claim again only after declining or lapsing.
create unique index review_assignments_one_seat on review_assignments (review_process_id, node_id, reviewer_user_id)
  where status in ('claimed', 'submitted') and reviewer_user_id is not null;
create index review_assignments_node on review_assignments (review_process_id, node_id);
create index review_assignments_reviewer on review_assignments (reviewer_user_id, claimed_at desc);
create index review_assignments_holds on review_assignments (hold_until) where status = 'claimed';
create trigger review_assignments_immutable before update on review_assignments
  for each row execute function svc_immutable_columns(
    'id', 'review_process_id', 'node_id', 'reviewer_kind', 'reviewer_user_id', 'agent', 'claimed_at');
create trigger review_assignments_end_once before update on review_assignments
  for each row execute function svc_write_once(
    'ended_at', 'status', 'response', 'rationale_md', 'citations', 'confidence', 'assistance');
create trigger review_assignments_no_delete before delete on review_assignments
  for each row execute function svc_no_delete();
