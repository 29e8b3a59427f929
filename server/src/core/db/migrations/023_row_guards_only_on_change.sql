-- 023: the row guards (001, 005, 016, 022) run only when a value they guard changes: each guard
-- trigger gets a WHEN clause, which PostgreSQL evaluates without calling the guard
-- (docs/operations.md, "Builtin verification"). A guard's PL/pgSQL call and its row-to-jsonb
-- conversions cost 0.06-0.09 ms per updated row even when nothing guarded changed, and a
-- verification run updates three guarded rows. Each WHEN holds whenever its guard could refuse:
-- it compares the guarded columns with `is distinct from`, which for their types (text, integers,
-- double precision, timestamptz, jsonb, text[]) tells two values apart exactly when their jsonb
-- forms differ, the guards' own comparison; a column of another type is compared as jsonb. So the
-- guards refuse exactly what they refused before, with the same errors.
-- Merged migrations are never edited: change the schema with a new numbered file.
do $$
declare
  guard record;
  changed text;
  found_columns integer;
begin
  for guard in
    select tg.oid, tg.tgrelid, tg.tgname, tg.tgrelid::regclass::text as tbl, p.proname,
      array_remove(string_to_array(encode(tg.tgargs, 'escape'), '\000'), '') as args
    from pg_trigger tg join pg_proc p on p.oid = tg.tgfoid
    where not tg.tgisinternal and tg.tgqual is null
      and p.proname in ('svc_immutable_columns', 'svc_write_once', 'svc_forward_status')
  loop
    if pg_get_triggerdef(guard.oid) not like '% BEFORE UPDATE ON % FOR EACH ROW EXECUTE FUNCTION %' then
      raise exception 'row guard % on % is not a BEFORE UPDATE row trigger', guard.tgname, guard.tbl;
    end if;
    -- "Some guarded column changed", column by column as the guard compares them.
    select count(*), string_agg(
        case when format_type(a.atttypid, null) in ('text', 'text[]', 'integer', 'bigint', 'smallint',
            'double precision', 'boolean', 'timestamp with time zone', 'jsonb')
          then format('old.%1$I is distinct from new.%1$I', a.attname)
          else format('to_jsonb(old.%1$I) is distinct from to_jsonb(new.%1$I)', a.attname)
        end, ' or ' order by col.n)
      into found_columns, changed
      from unnest(guard.args) with ordinality as col(name, n)
      join pg_attribute a on a.attrelid = guard.tgrelid and a.attname = col.name and not a.attisdropped;
    if found_columns <> cardinality(guard.args) then
      raise exception 'row guard % on % names a column the table lacks: %', guard.tgname, guard.tbl, guard.args;
    end if;
    execute format('drop trigger %I on %s', guard.tgname, guard.tbl);
    execute format('create trigger %I before update on %s for each row when (%s) execute function %I(%s)',
      guard.tgname, guard.tbl,
      case guard.proname
        -- svc_write_once refuses only once its first column is set.
        when 'svc_write_once' then format('old.%I is not null and (%s)', guard.args[1], changed)
        -- svc_forward_status guards one column.
        else changed
      end,
      guard.proname, (select string_agg(quote_literal(col), ', ') from unnest(guard.args) col));
  end loop;
end $$;

-- svc_stage_log_redaction (016) returns at once unless a stored log changes.
drop trigger verification_stage_results_log_redaction on verification_stage_results;
create trigger verification_stage_results_log_redaction before update on verification_stage_results
  for each row when (old.log is not null and new.log is distinct from old.log)
  execute function svc_stage_log_redaction();
