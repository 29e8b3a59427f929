-- 024: the queued runs of a Contract, oldest first: the runs a verify_run job takes with its own
-- (executeVerificationRuns). Without it the companions' lookup walks every unfinished run in
-- creation order, those waiting on reviews and attestations included.
create index verification_runs_queued_by_contract on verification_runs (verifier_contract_id, created_at)
  where status = 'queued';
