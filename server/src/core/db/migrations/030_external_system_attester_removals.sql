-- Removing an attester from a partner system (svc-server external-system remove-attester): the
-- attester row goes, so the user attests nothing more for the system, and the removal is kept
-- here for good with who added them, who removed them (null: an operator with svc-server), when
-- and why. Adding the user again later inserts a new attester row; both removals stay.
create table external_system_attester_removals (
  id bigint generated always as identity primary key,
  system text not null references external_systems (system),
  user_id text not null references users (id),
  added_by_user_id text references users (id),
  added_at timestamptz not null,
  removed_by_user_id text references users (id),
  removed_at timestamptz not null default now(),
  reason_md text not null constraint external_system_attester_removals_reason check (length(reason_md) between 1 and 10000)
);
create index external_system_attester_removals_by_system on external_system_attester_removals (system, id);
create trigger external_system_attester_removals_append_only before update or delete on external_system_attester_removals
  for each row execute function svc_append_only();
