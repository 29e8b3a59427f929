import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { readCampaign } from "../campaigns/read-campaign.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../core/paging/page-cursor.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { discoverableProblemSql } from "../visibility/visibility-sql.ts";
import { joinFragments } from "./join-fragments.ts";
import { pageProblems, type SortKey, type TierKey } from "./page-problems.ts";
import { type Problem, toProblem } from "./problem.ts";
import { ProblemOrder } from "./problem-order.ts";
import type { ProblemRow } from "./problem-row.ts";

/** What search_problems and `GET /api/problems` accept, already validated. */
export interface SearchProblemsOptions {
  /** Words to find in title, summary and statement (web search syntax: "quoted", -excluded, or). */
  query?: string;
  /** A Campaign slug or id. */
  campaign?: string;
  structure?: ProblemRow["structure"];
  status: ProblemRow["status"];
  /** true: only Problems outside any Campaign; false: only Campaign Problems. */
  standalone?: boolean;
  order: ProblemOrder;
  limit: number;
  cursor?: string;
}

/** One search hit: the canonical Problem and the Attempts started on it and not ended. */
export type ProblemWithAttempts = Problem & { active_attempts: number };

export interface SearchProblemsResult {
  problems: ProblemWithAttempts[];
  /** Pass back for the next page; null on the last page. */
  cursor: string | null;
  order: ProblemOrder;
}

/**
 * search_problems (spec 4.1): listed Problems and the viewer's own, matched with PostgreSQL
 * full-text search (`websearch_to_tsquery('english', query)` against the weighted title, summary
 * and statement document) and paged by keyset. With a query, `priority` order puts title and
 * summary matches first (matchTiers). Unlisted and other owners' private work never appears, administrators included.
 */
export async function searchProblems(
  sql: Sql,
  /** null: a visitor who is not signed in, who sees listed work only (the website's Explore). */
  viewer: Viewer | null,
  options: SearchProblemsOptions,
): Promise<SearchProblemsResult> {
  const query = options.query?.trim() || undefined;
  let campaignId: string | undefined;
  if (options.campaign !== undefined) {
    if (options.standalone === true) {
      throw new ServiceError(
        "invalid_input",
        "campaign and standalone=true exclude each other: drop one of them",
        { field: "standalone" },
      );
    }
    campaignId = (await readCampaign(sql, viewer, options.campaign)).id;
  }
  const fingerprint = cursorFingerprint({
    query: query ?? null,
    campaign: campaignId ?? null,
    structure: options.structure ?? null,
    status: options.status,
    standalone: options.standalone ?? null,
    order: options.order,
  });
  const tsquery = query === undefined ? undefined : sql`websearch_to_tsquery('english', ${query})`;
  const textTiers =
    options.order === ProblemOrder.priority && query && tsquery
      ? matchTiers(sql, query, tsquery, options.status)
      : undefined;
  // The number of keys does not depend on the seed, which the cursor itself may carry.
  const tiered = textTiers !== undefined || options.order === ProblemOrder.random;
  const keyCount = sortKeys(sql, options.order).length + (tiered ? 1 : 0);
  const position =
    options.cursor === undefined ? undefined : decodeCursor(options.cursor, fingerprint, keyCount);
  const seed =
    options.order === ProblemOrder.random ? (position?.s ?? randomBytes(8).toString("hex")) : undefined;
  const tier =
    textTiers ??
    (seed === undefined
      ? undefined
      : shuffleFrom(sql, seed, query !== undefined && RARE_TOKEN_SYNTAX.test(query)));
  const keys = sortKeys(sql, options.order);

  const filters: postgres.Fragment[] = [
    discoverableProblemSql(sql, viewer),
    sql`p.current_revision_id is not null`,
    sql`p.status = ${options.status}`,
  ];
  // The tiers match the query themselves; other orders filter on the whole document.
  if (tsquery && !textTiers) filters.push(sql`p.search_document @@ ${tsquery}`);
  if (campaignId !== undefined) filters.push(sql`p.campaign_id = ${campaignId}`);
  if (options.structure !== undefined) filters.push(sql`p.structure = ${options.structure}`);
  if (options.standalone === true) filters.push(sql`p.campaign_id is null`);
  if (options.standalone === false) filters.push(sql`p.campaign_id is not null`);

  const page = await pageProblems(sql, {
    where: joinFragments(sql, filters, " and "),
    keys,
    ...(tier ? { tier } : {}),
    planEachCall: tsquery !== undefined,
    limit: options.limit,
    after: position?.k,
  });
  return {
    problems: page.rows.map((row) => ({ ...toProblem(row), active_attempts: row.active_attempts })),
    cursor:
      page.next === null
        ? null
        : encodeCursor({ k: page.next, ...(seed ? { s: seed } : {}), f: fingerprint }),
    order: options.order,
  };
}

/**
 * Query text that yields a phrase: quotes, or a hyphenated word, which the parser splits into a
 * phrase of its parts. PostgreSQL estimates a phrase as if its words could sit anywhere in the
 * document, so it walked the priority index for title matches expecting a page within a few
 * thousand rows, and read the whole table when the phrase was rare (0.1 to 0.6 s at 100,000
 * Problems).
 */
const PHRASE_SYNTAX = /"|\S-\S/;

/**
 * Query text with a digit: a number or an identifier, the usual way to look one Problem up. Such
 * a lexeme is rare and absent from the column's statistics, so PostgreSQL estimates it at 0.5% of
 * the rows (its cap for a lexeme it has no figure for): at a million Problems, 5,000 matches, a
 * priority walk it expected to stop early read the whole table instead (24 s for a title number at
 * 1,000,000 Problems, issue 38). Its matches are read whole (the GIN indexes) and sorted: a
 * number that is common after all costs a sort of its matches, never a walk of every row.
 */
const RARE_TOKEN_SYNTAX = /\d/;

/**
 * Relevance within `priority` order, bounded in cost: Problems whose title and summary match the
 * query come first (tier 0), then those that match through their statement (tier 1), each tier by
 * priority. Ranking every match with ts_rank read each matching document (tens of milliseconds
 * per ten thousand matches); a tier is read in priority order and stops after one page.
 */
function matchTiers(
  sql: Sql,
  query: string,
  tsquery: postgres.Fragment,
  status: ProblemRow["status"],
): TierKey {
  const document = sql`p.search_document @@ ${tsquery}`;
  const title = sql`p.title_document @@ ${tsquery}`;
  // Both tiers check the whole document: a -excluded word may sit in the statement alone. In the
  // first, that check is ts_match_vq (what @@ calls) so that it filters rows and never becomes an
  // index condition: the planner otherwise intersected the title matches with every document
  // match (a 9 ms read of 35,000 postings for two common words), where the title index alone, or
  // the priority walk testing the short title first, reads a page in under 4 ms.
  const titleAndDocument = sql`${title} and ts_match_vq(p.search_document, ${tsquery})`;
  // With a phrase, the title tier reads all title candidates (the title index, bounded by the
  // titles holding the phrase's words) and sorts them; the statement tier still walks. With a
  // number, both tiers read their matches whole.
  const rare = RARE_TOKEN_SYNTAX.test(query);
  const readTitlesWhole = PHRASE_SYNTAX.test(query) || rare;
  // Walked, the title tier tests each title in the covering index (migration 038) in priority
  // order and reads only the rows that match: a page of two common words read about 8,300 rows
  // of a 1.5 GB table at a million Problems (45-49 ms), and reads as many index entries instead
  // (3.5-7 ms). `t` is the same row as `p`, so the title is tested once, there.
  const titleWalk = {
    keys: sortKeys(sql, ProblemOrder.priority, "t"),
    condition: sql`t.status = ${status} and t.current_revision_id is not null and t.title_document @@ ${tsquery}`,
  };
  return {
    conditions: [
      readTitlesWhole ? titleAndDocument : sql`ts_match_vq(p.search_document, ${tsquery})`,
      sql`${document} and not ${title}`,
    ],
    readEveryMatch: [readTitlesWhole, rare],
    walks: [readTitlesWhole ? undefined : titleWalk, undefined],
  };
}

/**
 * `random` order: each Problem holds a random `shuffle_key` (migration 034), and a search starts
 * at a point of that permutation drawn from its seed and goes round it once: the keys from there
 * up (tier 0), then those below (tier 1). Each tier is a walk of the `problems_by_shuffle` index
 * that stops after a page, where sorting by a hash of seed and id read and hashed every match
 * (tens of milliseconds per hundred thousand). Every search starts elsewhere; what it gives up is
 * that two searches' sequences are rotations of one another.
 */
function shuffleFrom(sql: Sql, seed: string, readEveryMatch: boolean): TierKey {
  if (!/^[0-9a-f]{16}$/.test(seed)) {
    throw new ServiceError("invalid_input", "cursor is not one this search made: start again without it", {
      field: "cursor",
    });
  }
  const start = Number.parseInt(seed.slice(0, 8), 16) % 2_147_483_647;
  return {
    conditions: [sql`p.shuffle_key >= ${start}`, sql`p.shuffle_key < ${start}`],
    readEveryMatch: [readEveryMatch, readEveryMatch],
  };
}

/**
 * The keyset for an order, all ascending: descending numbers are negated; the slug breaks ties.
 * `alias` names the problems row they are read from (`t`: a tier's walk, TierWalk).
 */
function sortKeys(sql: Sql, order: ProblemOrder, alias = "p"): SortKey[] {
  const row = sql(alias);
  const priority: SortKey = { expression: sql`-${row}.priority_weight`, type: "float8" };
  const slug: SortKey = { expression: sql`${row}.slug collate "C"`, type: "text" };
  switch (order) {
    case ProblemOrder.priority:
      return [priority, slug];
    case ProblemOrder.least_attempted:
      return [{ expression: sql`${row}.active_attempts`, type: "int4" }, priority, slug];
    case ProblemOrder.random:
      // Read from the seed's starting point round (shuffleFrom's tiers).
      return [{ expression: sql`${row}.shuffle_key`, type: "int4" }, slug];
    default: {
      const never: never = order;
      throw new Error(`unhandled order ${never}`);
    }
  }
}
