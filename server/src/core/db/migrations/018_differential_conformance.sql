-- 018: differential conformance (issue 19 item 5, docs/verification.md). A new implementation of a
-- stage that already has a current (passed, non-yanked) one is also compared with it on the
-- stage's fixtures; its conformance record names that implementation
-- (differential_against_implementation_id) and every fixture on which the two gave a different
-- result or score is one row here, written once with the record. Rows are never changed: a
-- conformance record is checked once.
create table conformance_disagreements (
  verifier_implementation_id text not null references verifier_implementations (id),
  against_implementation_id text not null references verifier_implementations (id),
  fixture_key text not null constraint conformance_disagreements_fixture check (length(fixture_key) between 1 and 60),
  -- StageResult: a checker's result, or error for the service's machinery.
  result text not null constraint conformance_disagreements_result
    check (result ~ '^(verified|refuted|inconclusive|error)$'),
  against_result text not null constraint conformance_disagreements_against_result
    check (against_result ~ '^(verified|refuted|inconclusive|error)$'),
  score double precision,
  against_score double precision,
  primary key (verifier_implementation_id, fixture_key),
  constraint conformance_disagreements_other check (against_implementation_id <> verifier_implementation_id)
);
create trigger conformance_disagreements_append_only before update or delete on conformance_disagreements
  for each row execute function svc_append_only();
