-- search_problems' `random` order without reading every match (issue 38): each Problem draws a
-- random key once, and a search walks this index from a point its seed picks, round once
-- (server/src/problems/search-problems.ts, shuffleFrom). Sorting every match by md5(seed || id)
-- read and hashed all of them: 100-300 ms for a broad query at a million Problems.
alter table problems add column shuffle_key integer not null default (floor(random() * 2147483647))::integer;
create index problems_by_shuffle on problems (status, shuffle_key, (slug collate "C"))
  where current_revision_id is not null;
