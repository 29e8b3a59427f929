-- 026: a failed conformance fixture keeps the checker's own output (issue 33, "failures told
-- where the author looks"). The conformance record's `failures` items are fixed by spec 2.2
-- ({fixture_key, expected_result, actual_result, detail}); the last 4 KiB of what the checker
-- wrote on stdout then stderr (its traceback) is kept beside it, one row per failed fixture,
-- written once with the record and never changed, like conformance_disagreements.
create table conformance_failure_logs (
  verifier_implementation_id text not null references verifier_implementations (id),
  fixture_key text not null constraint conformance_failure_logs_fixture check (length(fixture_key) between 1 and 60),
  -- 4096 bytes of output as safe text: an escaped byte takes four characters.
  log_tail text not null constraint conformance_failure_logs_tail check (length(log_tail) <= 16384),
  primary key (verifier_implementation_id, fixture_key)
);
create trigger conformance_failure_logs_append_only before update or delete on conformance_failure_logs
  for each row execute function svc_append_only();
