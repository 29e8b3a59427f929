-- 038: search_problems' title tier walked without the table (issue 38; docs/operations.md, "Issue
-- 38"). With a query in priority order, the title tier walks the Problems in priority order and
-- tests each title: at a million Problems a page of two common words tested about 8,300 rows of a
-- 1.5 GB table (45-49 ms, most of it reading the rows). This index replaces 019's
-- problems_by_priority (the same keys and predicate) and also holds what that test needs, so the
-- walk is an index-only scan and only the matching rows are read (searchProblems' TierWalk:
-- 3.5-7 ms). The bare columns are there because PostgreSQL's index-only scans never read an
-- expression's value from an index: `priority_weight` and `slug` must be columns of it too.
create index problems_by_priority_covering on problems (status, (-priority_weight), (slug collate "C"))
  include (id, priority_weight, slug, title_document)
  where current_revision_id is not null;
drop index problems_by_priority;
