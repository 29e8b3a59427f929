-- 029: one sandbox budget per host (issue 37 item 4, docs/operations.md "Sandbox budget"). Every
-- sandboxed checker a process runs holds a lease row naming its host, whose count, memory and
-- per-user counts are held to the host's budget by every process there (serve and each worker).
-- A lease names its holder by the PostgreSQL backend of a connection the holding process keeps
-- open for as long as it lives (pid and backend_start, so a reused pid is not the holder): a
-- process that dies, kill -9 included, closes that connection and its leases are void, removed
-- by the next process that takes a lease on the host. Merged migrations are never edited.
create table sandbox_leases (
  id bigint generated always as identity primary key,
  host text not null constraint sandbox_leases_host check (length(host) between 1 and 255),
  holder_pid integer not null,
  holder_started_at timestamptz not null,
  -- Whose work the checker runs ('' for the service's own: conformance of its fixtures), for the per-user cap.
  owner text not null constraint sandbox_leases_owner check (length(owner) <= 64),
  memory_mb integer not null constraint sandbox_leases_memory check (memory_mb >= 0),
  acquired_at timestamptz not null default now()
);
create index sandbox_leases_by_host on sandbox_leases (host);
