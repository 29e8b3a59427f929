-- 010: liveness of graphile-worker workers, so any job locked by a dead worker is released
-- (issue 14, "Recovery for every job"). Each worker of a runner writes its row every
-- HEARTBEAT interval; the minute sweep force-unlocks the jobs of workers whose row went stale.
-- Merged migrations are never edited: change the schema with a new numbered file.
create table worker_heartbeats (
  worker_id text primary key constraint worker_heartbeats_id check (length(worker_id) between 1 and 200),
  beat_at timestamptz not null
);
