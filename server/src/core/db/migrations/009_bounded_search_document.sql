-- 009: the search document of a Problem is built from a bounded prefix of its statement.
-- to_tsvector fails ("string is too long for tsvector") once the lexemes and positions of one
-- text pass 1 MB, which a few MB of distinct words reach. Statements are bounded by lint
-- (256 KiB, schemas/src/ceilings.ts); the first 65536 characters here keep the document far
-- under PostgreSQL's limit whatever the text (title and summary are bounded by their columns'
-- schemas), and search still matches everything a statement says up front.
-- Merged migrations are never edited: change the schema with a new numbered file.

create or replace function svc_problem_search_document(title text, summary text, statement text) returns tsvector
  language sql immutable parallel safe as $$
    select setweight(to_tsvector('english', left(coalesce(title, ''), 1000)), 'A')
      || setweight(to_tsvector('english', left(coalesce(summary, ''), 10000)), 'B')
      || setweight(to_tsvector('english', left(coalesce(statement, ''), 65536)), 'C')
  $$;
