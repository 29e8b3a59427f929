-- 019: search_problems reads a page without ranking every match (docs/operations.md, "Where the
-- time goes: MCP and search").
-- title_document is the title (A) and summary (B) part of search_document, small enough to test
-- row by row: with a query, priority order lists title and summary matches first, then statement
-- matches, each tier by priority. The two btree indexes follow the keyset orders exactly
-- (expressions and collation included), so a page is an index walk that stops after `limit` rows.
alter table problems add column title_document tsvector generated always as (
  setweight(to_tsvector('english', left(coalesce(title, ''), 1000)), 'A')
  || setweight(to_tsvector('english', left(coalesce(summary, ''), 10000)), 'B')) stored;
create index problems_title_search on problems using gin (title_document);
create index problems_by_priority on problems (status, (-priority_weight), (slug collate "C"))
  where current_revision_id is not null;
create index problems_by_attempts on problems (status, active_attempts, (-priority_weight), (slug collate "C"))
  where current_revision_id is not null;
