import type postgres from "postgres";
import { AttemptAccess, readAttempt } from "../attempts/read-attempt.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../core/paging/page-cursor.ts";
import type { Services } from "../core/services/services.ts";
import { readProblem } from "../problems/read-problem.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { NOTE_COLUMNS, type Note, type NoteRow, toNote } from "./note.ts";

/** How search_notes matches: words (full text), resemblance (trigrams), or either. */
export const NoteSearchMode = { keyword: "keyword", semantic: "semantic", both: "both" } as const;
export type NoteSearchMode = (typeof NoteSearchMode)[keyof typeof NoteSearchMode];

/**
 * The least trigram word similarity a semantic match needs (pg_trgm's `word_similarity`, 0 to 1:
 * how much of the query's trigrams one stretch of the note shares). 0.3 keeps misspellings and
 * other word forms ("timeouts" for "timed out") while dropping unrelated notes.
 */
export const SEMANTIC_THRESHOLD = 0.3;

/** One hit: the note, its score (higher is better) and which methods matched it. */
export type NoteHit = Note & { score: number; matched: Array<"keyword" | "semantic"> };

/**
 * search_notes over the caller's own notes only (another participant's notes are theirs, and
 * managers read them through get_attempt/get_note, not search). `keyword` is PostgreSQL full text
 * (`websearch_to_tsquery('english')`: stemmed words, "phrases", -exclusions), scored
 * `ts_rank(.., 32)` in 0..1; `semantic` is pg_trgm word similarity of the query to the note, no
 * model involved; `both` keeps a note either matches and adds the two scores. Pages are offsets
 * into one ranking (own notes are few), the cursor fingerprinted with the query and filters.
 */
export async function searchNotes(
  services: Services,
  caller: Caller,
  input: {
    query: string;
    mode: NoteSearchMode;
    problem?: string;
    attempt_id?: string;
    limit: number;
    cursor?: string;
  },
): Promise<{ notes: NoteHit[]; cursor: string | null; mode: NoteSearchMode }> {
  const { sql } = services;
  const viewer = viewerOf(caller.principal);
  const filters: postgres.Fragment[] = [sql`n.user_id = ${viewer.userId}`];
  if (input.problem !== undefined) {
    const problem = await readProblem(sql, viewer, input.problem);
    filters.push(sql`n.problem_id = ${problem.id}`);
  }
  if (input.attempt_id !== undefined) {
    const { attempt } = await readAttempt(sql, viewer, input.attempt_id, { access: AttemptAccess.own });
    filters.push(sql`n.attempt_id = ${attempt.id}`);
  }
  const fingerprint = cursorFingerprint({
    tool: "search_notes",
    query: input.query,
    mode: input.mode,
    problem: input.problem ?? null,
    attempt: input.attempt_id ?? null,
  });
  const offset = input.cursor === undefined ? 0 : Number(decodeCursor(input.cursor, fingerprint, 1).k[0]);
  const keyword = input.mode !== NoteSearchMode.semantic;
  const semantic = input.mode !== NoteSearchMode.keyword;
  const matches: postgres.Fragment[] = [];
  if (keyword) matches.push(sql`n.search_document @@ q.tsq`);
  if (semantic) matches.push(sql`word_similarity(${input.query}, n.body_md) >= ${SEMANTIC_THRESHOLD}`);
  const where = filters.reduce((all, next) => sql`${all} and ${next}`);
  const match = matches.reduce((all, next) => sql`${all} or ${next}`);
  const rows = await sql<Array<NoteRow & { keyword_score: number | null; semantic_score: number | null }>>`
    with q as (select websearch_to_tsquery('english', ${input.query}) as tsq)
    select ${sql.unsafe(NOTE_COLUMNS)},
      case when n.search_document @@ q.tsq then ts_rank(n.search_document, q.tsq, 32) end as keyword_score,
      case when word_similarity(${input.query}, n.body_md) >= ${SEMANTIC_THRESHOLD}
        then word_similarity(${input.query}, n.body_md) end as semantic_score
    from notes n, q
    where ${where} and (${match})
    order by ${keyword ? sql`coalesce(ts_rank(n.search_document, q.tsq, 32), 0)` : sql`0`}
      + ${semantic ? sql`word_similarity(${input.query}, n.body_md)` : sql`0`} desc, n.created_at desc, n.id
    offset ${Number.isSafeInteger(offset) && offset >= 0 ? offset : 0} limit ${input.limit + 1}`;
  const more = rows.length > input.limit;
  const notes = rows.slice(0, input.limit).map((row): NoteHit => {
    const matched: NoteHit["matched"] = [];
    let score = 0;
    if (keyword && row.keyword_score !== null) {
      matched.push("keyword");
      score += row.keyword_score;
    }
    if (semantic && row.semantic_score !== null) {
      matched.push("semantic");
      score += row.semantic_score;
    }
    return { ...toNote(row), score: Math.round(score * 1e4) / 1e4, matched };
  });
  return {
    notes,
    cursor: more ? encodeCursor({ k: [offset + input.limit], f: fingerprint }) : null,
    mode: input.mode,
  };
}
