-- 022: the row guards of 001 (svc_immutable_columns, svc_write_once) convert each row to jsonb once
-- per update, not once per guarded column (docs/operations.md, "Where the time goes: publish").
-- Merged migrations are never edited: change the schema with a new numbered file.
--
-- to_jsonb(row) copies every column, so the guard on authoring_uploads (six columns, then three
-- write-once ones) converted the upload's stored validation, a megabyte of JSON for a 300-problem
-- campaign, thirteen times per update: 40-60 ms of each validation and publication. The
-- comparisons are unchanged (the same jsonb values, compared the same way); only the conversions
-- are shared.

create or replace function svc_immutable_columns() returns trigger language plpgsql as $$
declare
  col text;
  new_row jsonb := to_jsonb(new);
  old_row jsonb := to_jsonb(old);
begin
  foreach col in array tg_argv loop
    if (new_row -> col) is distinct from (old_row -> col) then
      raise exception '%.% never changes once written', tg_table_name, col
        using errcode = 'SV001', hint = 'insert a new record instead';
    end if;
  end loop;
  return new;
end $$;

create or replace function svc_write_once() returns trigger language plpgsql as $$
declare
  col text;
  old_row jsonb := to_jsonb(old);
  new_row jsonb;
begin
  if (old_row -> tg_argv[0]) <> 'null'::jsonb then
    new_row := to_jsonb(new);
    foreach col in array tg_argv loop
      if (new_row -> col) is distinct from (old_row -> col) then
        raise exception '%.% is write-once and already set', tg_table_name, col using errcode = 'SV002';
      end if;
    end loop;
  end if;
  return new;
end $$;
