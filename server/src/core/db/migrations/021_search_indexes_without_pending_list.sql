-- 021: the full-text indexes of problems take new entries directly, not through a pending list
-- (docs/operations.md, "Where the time goes: MCP and search").
-- With fastupdate on, new entries wait in an unsorted list that every search reads through in full
-- until a vacuum merges it: after 100,000 Problems were published the list held 434 pages, and a
-- one-word search that finds a single Problem took 1.7 ms instead of 0.06 ms. Problems are written
-- at publication and when an Attempt starts or ends, far less often than they are searched.
-- Merged migrations are never edited: change the schema with a new numbered file.
alter index problems_search set (fastupdate = off);
alter index problems_title_search set (fastupdate = off);
-- Turning fastupdate off keeps what is already pending: merge it now.
select gin_clean_pending_list('problems_search'::regclass), gin_clean_pending_list('problems_title_search'::regclass);
