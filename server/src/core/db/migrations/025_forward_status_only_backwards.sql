-- 025: the forward-only status guards (005) are called only for a move backwards. Migration 023
-- gave them `old.status is distinct from new.status`, so every forward move (a run queued ->
-- running -> finished, a stage running -> finished: three per builtin run) still called
-- PL/pgSQL and converted both rows to jsonb. The WHEN now states svc_forward_status's own refusal,
-- the new status ranked before the old, so the guard refuses exactly what it did, with its error.
-- Merged migrations are never edited: change the schema with a new numbered file.
do $$
declare
  guard record;
  ranks constant text := 'array[''queued'', ''running'', ''finished'']';
begin
  for guard in
    select tg.oid, tg.tgname, tg.tgrelid::regclass::text as tbl,
      array_remove(string_to_array(encode(tg.tgargs, 'escape'), '\000'), '') as args
    from pg_trigger tg join pg_proc p on p.oid = tg.tgfoid
    where not tg.tgisinternal and p.proname = 'svc_forward_status'
  loop
    if cardinality(guard.args) <> 1 then
      raise exception 'forward status guard % on % does not name one column: %', guard.tgname, guard.tbl, guard.args;
    end if;
    execute format('drop trigger %I on %s', guard.tgname, guard.tbl);
    execute format(
      'create trigger %I before update on %s for each row '
      'when (array_position(%3$s, new.%4$I) < array_position(%3$s, old.%4$I)) '
      'execute function svc_forward_status(%5$L)',
      guard.tgname, guard.tbl, ranks, guard.args[1], guard.args[1]);
  end loop;
end $$;
