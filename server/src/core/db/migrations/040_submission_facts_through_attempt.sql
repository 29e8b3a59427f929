-- 040: a Submission's and a run's foreign keys checked through the row they copy their facts from
-- (issue 38, CPU per verdict; docs/operations.md, "CPU per verdict, stop 43"). Every foreign-key
-- check locks its parent row FOR KEY SHARE: a Submission locked its Attempt, user, Problem and
-- revision, and its run the revision and the Contract, so every Submission of one Problem locked
-- the same four hot rows (a lock record in the WAL each, and a multixact whenever two creators
-- overlap). What these keys say holds more strongly through one row each:
-- - a Submission's user, Problem and revision are its Attempt's (create_submission copies them),
--   so one key on the four columns to the Attempt checks all of them, on the Attempt row its
--   creator already holds FOR UPDATE. The Attempt's own keys keep the user, Problem and revision
--   existing, and none of the three can be deleted while the Attempt references them.
-- - a run's Contract is its revision's pinned Contract (create_submission and reruns read it
--   there; revisions are append-only), so one key on both columns to the revision checks both;
--   the revision's own key keeps the Contract.
alter table attempts add constraint attempts_submission_facts
  unique (id, user_id, problem_id, problem_revision_id);
alter table submissions
  add constraint submissions_attempt_facts foreign key (attempt_id, user_id, problem_id, problem_revision_id)
    references attempts (id, user_id, problem_id, problem_revision_id),
  drop constraint submissions_attempt_id_fkey,
  drop constraint submissions_user_id_fkey,
  drop constraint submissions_problem_id_fkey,
  drop constraint submissions_problem_revision_id_fkey;

alter table problem_revisions add constraint problem_revisions_contract_pin
  unique (id, verifier_contract_id);
alter table verification_runs
  add constraint verification_runs_revision_contract foreign key (problem_revision_id, verifier_contract_id)
    references problem_revisions (id, verifier_contract_id),
  drop constraint verification_runs_problem_revision_id_fkey,
  drop constraint verification_runs_verifier_contract_id_fkey;
