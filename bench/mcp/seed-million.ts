import type { Pool } from "../../server/src/core/db/connect-sql.ts";
import { VOCABULARY } from "./seed-problems.ts";

/** Distinct summaries and statement bodies the bulk rows share: word lists are the slow part. */
const TEXTS = 4096;

/**
 * Inserts `count` listed, open, standalone Problems with one revision each, in bulk: rows are
 * made by PostgreSQL from generate_series (no publication, no rows through the client), 50,000 a
 * statement. Summaries (14 words) and statement bodies (80 words) of seedProblems' vocabulary are
 * drawn by hashing from TEXTS of each, made first with their weighted tsvectors, so each row only
 * adds its title (4 words and its number): the search document is svc_problem_search_document's
 * three weighted parts (title A, summary B, statement C) concatenated. Slugs are `m-<n>`. The
 * table's non-unique indexes are dropped while it fills and built again from their definitions.
 */
export async function seedProblemsInBulk(sql: Pool, count: number): Promise<void> {
  const owner = "usr_benchbulkowner";
  await sql`insert into users (id, handle) values (${owner}, 'bench-bulk-owner') on conflict do nothing`;
  const words = (salt: number, n: number) => sql`(select string_agg(
      v.w[1 + (hashint4(k * ${salt}::int + j) & 2147483647) % cardinality(v.w)], ' ')
    from generate_series(1, ${n}::int) j)`;
  await sql`
    create unlogged table bench_texts as
    with v as (select ${VOCABULARY}::text[] as w)
    select k, s.summary, b.body,
      setweight(to_tsvector('english', s.summary), 'B') as summary_vector,
      setweight(to_tsvector('english', b.body), 'C') as body_vector
    from v, generate_series(0, ${TEXTS - 1}::int) k,
      lateral (select ${words(13, 14)} as summary) s,
      lateral (select ${words(31, 80)} as body) b`;
  await sql`create unique index on bench_texts (k)`;
  // Indexes are built once at the end from their own definitions (the catalog's): a GIN index
  // built whole is many times faster than one grown row by row. Keys and unique ones stay.
  const indexes = await sql<{ name: string; definition: string }[]>`
    select i.relname as name, pg_get_indexdef(x.indexrelid) as definition
    from pg_index x join pg_class i on i.oid = x.indexrelid
    where x.indrelid = 'problems'::regclass and not x.indisunique`;
  for (const index of indexes) await sql.unsafe(`drop index ${index.name}`);
  const CHUNK = 50_000;
  for (let first = 1; first <= count; first += CHUNK) {
    const last = Math.min(count, first + CHUNK - 1);
    await sql.begin(async (tx) => {
      await tx`
        with v as (select ${VOCABULARY}::text[] as w),
        made as materialized (
          select i, lpad(i::text, 12, '0') as n, title, x.*
          from v, generate_series(${first}::int, ${last}::int) i,
            lateral (select (select string_agg(v.w[1 + (hashint4(i * 7 + j) & 2147483647) % cardinality(v.w)], ' ')
              from generate_series(1, 4) j) || ' ' || i as title) t,
            lateral (select * from bench_texts where k = (hashint4(i) & 2147483647) % ${TEXTS}::int) x
        ),
        problems_made as (
          insert into problems (id, slug, owner_user_id, structure, title, summary, priority_weight, visibility,
            current_revision_number, current_revision_id, search_document)
          select 'prb_m' || n, 'm-' || i, ${owner}, 'SOLVE', title, summary, (hashint4(i) & 1023) / 1023.0, 'listed',
            1, 'prv_m' || n,
            setweight(to_tsvector('english', title), 'A') || summary_vector
              || setweight(to_tsvector('english', '# ' || title), 'C') || body_vector
          from made
        )
        insert into problem_revisions (id, problem_id, revision_number, statement_md, created_by_user_id)
        select 'prv_m' || n, 'prb_m' || n, 1, '# ' || title || E'\\n\\n' || body || E'\\n', ${owner} from made`;
    });
  }
  await sql`drop table bench_texts`;
  await sql.begin(async (tx) => {
    await tx`set local maintenance_work_mem = '256MB'`;
    for (const index of indexes) await tx.unsafe(index.definition);
  });
  await sql`vacuum (analyze) problems`;
  await sql`analyze problem_revisions`;
}
