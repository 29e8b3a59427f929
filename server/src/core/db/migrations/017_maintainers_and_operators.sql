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
