-- 018: connected agents (issue 18, docs/agents.md): the event log, its subscriptions and webhook
-- delivery log, criteria changes, wants, agent job leases, usage reports and budgets. Merged
-- migrations are never edited: change the schema with a new numbered file.

-- The event log: one row per change an agent may be woken for, inserted in the transaction of the
-- change (so an event exists exactly when its change committed) under a transaction-scoped
-- advisory lock, so ids are handed out in commit order and a reader's cursor never skips an event
-- that commits later. Who may see an event is decided when it is read: `audience_user_id` names
-- the one user of a personal event; a seat event (`review_process_id`, `node_id`) is seen by those
-- whose reviewer standing for the node passes.
create table events (
  id bigint generated always as identity primary key,
  kind text not null constraint events_kind check (kind in
    ('review.seat_opened', 'verification.run_finished', 'criteria.changed')),
  occurred_at timestamptz not null,
  audience_user_id text references users (id),
  problem_id text references problems (id),
  review_process_id text references review_processes (id),
  node_id text,
  data jsonb not null,
  constraint events_audience check (audience_user_id is not null or review_process_id is not null)
);
create index events_audience on events (audience_user_id, id) where audience_user_id is not null;
create trigger events_append_only before update or delete on events
  for each row execute function svc_append_only();

-- A subscription delivers the events its user may see, of the kinds it names (null: every kind),
-- to one webhook URL. `cursor` is the last event id delivered or passed over; deliveries advance it
-- one event at a time, in order. Its signing secret is derived from the deployment's signing
-- secret and the subscription id, so no secret is stored.
create table event_subscriptions (
  id text primary key constraint event_subscriptions_id_format check (id ~ '^esb_[0-9a-z]{10,32}$'),
  user_id text not null references users (id),
  kinds text[] constraint event_subscriptions_kinds check (cardinality(kinds) between 1 and 10),
  delivery text not null constraint event_subscriptions_delivery check (delivery in ('webhook')),
  url text not null constraint event_subscriptions_url check (length(url) between 8 and 2048),
  cursor bigint not null default 0,
  -- Consecutive failed attempts at the event after the cursor, and when the next is due.
  failures integer not null default 0,
  retry_at timestamptz,
  created_at timestamptz not null,
  ended_at timestamptz
);
create index event_subscriptions_live on event_subscriptions (id) where ended_at is null;
create index event_subscriptions_user on event_subscriptions (user_id, created_at);
create trigger event_subscriptions_immutable before update on event_subscriptions
  for each row execute function svc_immutable_columns('id', 'user_id', 'kinds', 'delivery', 'url', 'created_at');
create trigger event_subscriptions_end_once before update on event_subscriptions
  for each row execute function svc_write_once('ended_at');

-- The delivery log: every attempt to deliver an event to a subscription's webhook.
create table event_deliveries (
  id bigint generated always as identity primary key,
  subscription_id text not null references event_subscriptions (id),
  event_id bigint not null references events (id),
  attempted_at timestamptz not null,
  -- The HTTP status of the answer; null when none came (refused address, timeout, connection error).
  status_code integer,
  delivered boolean not null,
  error text constraint event_deliveries_error check (length(error) <= 2000),
  duration_ms integer not null constraint event_deliveries_duration check (duration_ms >= 0)
);
create index event_deliveries_subscription on event_deliveries (subscription_id, id);
create trigger event_deliveries_append_only before update or delete on event_deliveries
  for each row execute function svc_append_only();

-- A criteria change: something published that changes what counts as correct for Attempts a user
-- has under way, one row per affected user, written with the publication.
create table criteria_changes (
  id text primary key constraint criteria_changes_id_format check (id ~ '^crc_[0-9a-z]{10,32}$'),
  seq bigint generated always as identity unique,
  user_id text not null references users (id),
  kind text not null constraint criteria_changes_kind check (kind in
    ('problem_revised', 'implementation_current', 'run_revoked', 'inputs_released')),
  problem_id text not null references problems (id),
  from_revision_id text references problem_revisions (id),
  to_revision_id text references problem_revisions (id),
  reason text not null constraint criteria_changes_reason check (length(reason) between 1 and 4000),
  changed text[] not null,
  -- [{attempt_id, problem_revision_id}]
  affected_attempts jsonb not null,
  created_at timestamptz not null
);
create index criteria_changes_user on criteria_changes (user_id, seq);
create trigger criteria_changes_append_only before update or delete on criteria_changes
  for each row execute function svc_append_only();

-- want_solved: a Problem a user wants their agents to solve; withdrawn once, for good.
create table agent_wants (
  id text primary key constraint agent_wants_id_format check (id ~ '^wnt_[0-9a-z]{10,32}$'),
  user_id text not null references users (id),
  problem_id text not null references problems (id),
  note_md text constraint agent_wants_note check (length(note_md) <= 5000),
  created_at timestamptz not null,
  withdrawn_at timestamptz
);
create unique index agent_wants_live on agent_wants (user_id, problem_id) where withdrawn_at is null;
create trigger agent_wants_immutable before update on agent_wants
  for each row execute function svc_immutable_columns('id', 'user_id', 'problem_id', 'note_md', 'created_at');
create trigger agent_wants_withdraw_once before update on agent_wants
  for each row execute function svc_write_once('withdrawn_at');

-- accept_agent_job: a user's lease on a job, renewed by accepting again; one row per user and job.
create table agent_job_leases (
  id text primary key constraint agent_job_leases_id_format check (id ~ '^ajl_[0-9a-z]{10,32}$'),
  user_id text not null references users (id),
  job_id text not null constraint agent_job_leases_job check (length(job_id) between 1 and 200),
  kind text not null constraint agent_job_leases_kind check (kind in ('review_seat', 'solve', 'continuation')),
  accepted_at timestamptz not null,
  expires_at timestamptz not null,
  constraint agent_job_leases_expiry check (expires_at > accepted_at),
  unique (user_id, job_id)
);

-- report_agent_usage: what one job cost, counted against the user's budget window.
create table agent_usage (
  id text primary key constraint agent_usage_id_format check (id ~ '^agu_[0-9a-z]{10,32}$'),
  user_id text not null references users (id),
  lease_id text not null references agent_job_leases (id),
  job_id text not null,
  input_tokens bigint not null constraint agent_usage_input check (input_tokens >= 0),
  output_tokens bigint not null constraint agent_usage_output check (output_tokens >= 0),
  cost_usd numeric(14, 6) not null constraint agent_usage_cost check (cost_usd >= 0),
  duration_ms bigint not null constraint agent_usage_duration check (duration_ms >= 0),
  model text constraint agent_usage_model check (length(model) <= 120),
  reported_at timestamptz not null
);
create index agent_usage_user on agent_usage (user_id, reported_at);
create trigger agent_usage_append_only before update or delete on agent_usage
  for each row execute function svc_append_only();

-- set_usage_reset: the user's budget and its window; null limits are no limit.
create table agent_budgets (
  user_id text primary key references users (id),
  token_budget bigint constraint agent_budgets_tokens check (token_budget >= 0),
  cost_budget_usd numeric(14, 6) constraint agent_budgets_cost check (cost_budget_usd >= 0),
  window_started_at timestamptz not null,
  resets_at timestamptz not null,
  period_hours integer constraint agent_budgets_period check (period_hours between 1 and 8760),
  updated_at timestamptz not null,
  constraint agent_budgets_window check (resets_at > window_started_at)
);
