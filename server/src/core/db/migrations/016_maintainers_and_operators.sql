-- 017: what maintainers and operators do to published records (issue 19).
-- Merged migrations are never edited: change the schema with a new numbered file.

-- A yank (spec 3 and 9.5) records who withdrew the record and why beside the write-once
-- yanked_at; the canonical records (no additional properties) show yanked_at alone, the yank
-- tools return the rest. Once yanked_at is set, none of the three moves again.
alter table verifier_implementations
  add column yanked_by_user_id text references users (id),
  add column yank_reason_md text
    constraint verifier_implementations_yank_reason check (length(yank_reason_md) between 1 and 10000);
create trigger verifier_implementations_yank_details_once before update on verifier_implementations
  for each row execute function svc_write_once('yanked_at', 'yanked_by_user_id', 'yank_reason_md');

alter table review_protocols
  add column yanked_by_user_id text references users (id),
  add column yank_reason_md text
    constraint review_protocols_yank_reason check (length(yank_reason_md) between 1 and 10000);
create trigger review_protocols_yank_details_once before update on review_protocols
  for each row execute function svc_write_once('yanked_at', 'yanked_by_user_id', 'yank_reason_md');

-- A stage's log (spec 2.4) is written once when the stage finishes; afterwards the only change is
-- one operator redaction, which replaces the bytes (content_hash, size_bytes) and records the
-- original hash and size. A redaction is never removed or replaced (append-only), and nothing
-- else of the log moves.
create function svc_stage_log_redaction() returns trigger language plpgsql as $$
begin
  if old.log is null or new.log is not distinct from old.log then
    return new;
  end if;
  if coalesce(old.log -> 'redaction', 'null'::jsonb) <> 'null'::jsonb then
    raise exception 'verification_stage_results.log is already redacted; a redaction is written once'
      using errcode = 'SV002';
  end if;
  if coalesce(new.log -> 'redaction', 'null'::jsonb) = 'null'::jsonb
    or new.log -> 'redaction' ->> 'original_content_hash' is distinct from old.log ->> 'content_hash'
    or new.log -> 'redaction' -> 'original_size_bytes' is distinct from old.log -> 'size_bytes'
    or new.log -> 'truncated' is distinct from old.log -> 'truncated' then
    raise exception 'verification_stage_results.log changes only by a redaction that keeps the original hash and size'
      using errcode = 'SV002';
  end if;
  return new;
end $$;
create trigger verification_stage_results_log_redaction before update on verification_stage_results
  for each row execute function svc_stage_log_redaction();

-- revoke_implementation_runs finds every run a stage of which ran one implementation.
create index verification_stage_results_implementation
  on verification_stage_results ((mechanism -> 'sandbox' ->> 'verifier_implementation_id'))
  where kind = 'sandbox';

-- External stages (spec 2.4 mechanism.external, 2.5 external_system): a partner system an
-- operator registered under the name Contracts give in `external_system`, how long a run waits
-- for its attestation, and the users who may attest for it. A null actor is an operator acting
-- with svc-server, as for grants.
create table external_systems (
  system text primary key constraint external_systems_name check (length(system) between 1 and 200),
  attestation_hours integer not null
    constraint external_systems_attestation_hours check (attestation_hours between 1 and 8760),
  registered_by_user_id text references users (id),
  registered_at timestamptz not null default now()
);
create trigger external_systems_no_delete before delete on external_systems
  for each row execute function svc_no_delete();

create table external_system_attesters (
  system text not null references external_systems (system),
  user_id text not null references users (id),
  added_by_user_id text references users (id),
  added_at timestamptz not null default now(),
  primary key (system, user_id)
);
create trigger external_system_attesters_append_only before update on external_system_attesters
  for each row execute function svc_append_only();

-- When a waiting external stage ends inconclusive without an attestation; set when it starts.
alter table verification_stage_results add column attestation_due_at timestamptz;
create index verification_stage_results_awaiting_attestation on verification_stage_results (attestation_due_at)
  where kind = 'external' and status = 'running';
