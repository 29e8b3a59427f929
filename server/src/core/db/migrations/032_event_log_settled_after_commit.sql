-- The event log without a global lock (issue 38; docs/agents.md, "Events"). Writers no longer take
-- one advisory lock to commit: a change's transaction appends its events to `pending_events`,
-- which any number of transactions insert into at once. Events get their log id (events.id, the
-- cursor) only after they committed, when a reader calls settle_events(): it moves every
-- committed pending event into `events`, ids drawn in order, under a lock held by settlers alone
-- to their commit. A settle's ids therefore commit in id order, so a reader past id n never later
-- finds a lower one committed, whatever order the writers committed in; a writer that dies
-- mid-transaction leaves nothing behind (its pending rows vanish with it), so no reader waits.

-- The same columns and checks as `events` (LIKE copies the check constraints; a change to them
-- must change both tables), so a bad event fails in its writer's transaction, never at a settle.
create table pending_events (
  seq bigint generated always as identity primary key,
  like events including constraints
);
alter table pending_events drop column id;
alter table pending_events
  add foreign key (audience_user_id) references users (id),
  add foreign key (problem_id) references problems (id),
  add foreign key (review_process_id) references review_processes (id);

-- Moves the committed pending events into the log and returns how many. Call it in a transaction
-- of its own (it holds its lock to that transaction's commit), before reading the log. Each
-- statement of a PL/pgSQL function takes a fresh snapshot, so the move sees every event committed
-- before the lock was granted, including those a previous settler left.
create function settle_events() returns integer language plpgsql as $$
declare
  moved integer;
begin
  if not exists (select from pending_events) then
    return 0;
  end if;
  perform pg_advisory_xact_lock(6005061118224322132); -- 0x5356_4345_5645_4e54, "SVCEVENT"
  with taken as (delete from pending_events returning *)
  insert into events (kind, occurred_at, audience_user_id, problem_id, review_process_id, node_id, data)
  select kind, occurred_at, audience_user_id, problem_id, review_process_id, node_id, data
  from (select * from taken order by seq) t;
  get diagnostics moved = row_count;
  return moved;
end;
$$;
