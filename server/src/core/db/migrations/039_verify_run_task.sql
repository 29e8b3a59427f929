-- 039: the graphile-worker task row a verification run's job names, there before the first
-- Submission (core/jobs/enqueue-run.ts writes run jobs without add_job, which would create it on
-- its first call). graphile-worker's own schema is installed before these migrations (migrate.ts).
-- 'verify_run' is TaskName.verifyRun (core/jobs/task-name.ts): a shipped task name never changes.
insert into graphile_worker._private_tasks (identifier) values ('verify_run') on conflict do nothing;
