import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { joinFragments } from "./join-fragments.ts";
import { type ProblemRow, problemColumnsSql } from "./problem-row.ts";

/** One sort key of a keyset page, always ascending (negate a number to sort it descending). */
export interface SortKey {
  expression: postgres.Fragment;
  /** The SQL type the cursor's value is cast to when compared. */
  type: "float8" | "int4" | "text";
}

/**
 * A leading sort key whose value is the number of the tier a row falls in: tier `i` holds the rows
 * that meet `conditions[i]` (the conditions exclude each other and together cover the page's rows).
 * Each tier is read as its own keyset scan in the order of the remaining keys, so an index on
 * those keys serves it and a page stops reading after `limit` rows per tier, however many match.
 */
export interface TierKey {
  conditions: postgres.Fragment[];
  /**
   * The tiers to read whole and sort rather than walk an index in key order: for a condition whose
   * selectivity the planner cannot estimate (a full-text phrase), a walk it expected to stop
   * after a few thousand rows read the whole table.
   */
  readEveryMatch?: boolean[];
  /**
   * Per tier, a walk of a covering index instead of the rows: the tier reads `problems t` (whose
   * columns the walk's index holds, so PostgreSQL reads it without the heap) joined by id to
   * `problems p`, ordered and positioned by `keys` (the page's keys on `t`, same values) and
   * filtered first by `condition` (on `t` only); the rows it keeps are then read whole. A tier
   * whose rows are rare among those walked reads thousands of index entries instead of as many
   * rows of the table (migration 038).
   */
  walks?: Array<TierWalk | undefined>;
}

/** A tier read through a covering index (TierKey's `walks`). */
export interface TierWalk {
  keys: SortKey[];
  condition: postgres.Fragment;
}

/** A page of Problems and the sort key values of its last row, or null when nothing follows. */
export interface ProblemPage {
  rows: ProblemRow[];
  next: Array<number | string> | null;
}

/**
 * One keyset page of `problems p left join campaigns c` filtered by `where`, ordered by `keys`
 * (ascending, the last one unique), starting after `after`; with `tier`, ordered by the tier
 * first (its value comes first in `after` and `next`). Reads one row more than `limit` to know
 * whether another page follows. Keyset paging (not OFFSET) keeps each row on exactly one page
 * while rows are added, and costs the same on page 100 as on page 1.
 */
export async function pageProblems(
  sql: Sql,
  options: {
    where: postgres.Fragment;
    keys: SortKey[];
    tier?: TierKey;
    /**
     * Plan with this call's values every time (an unnamed statement) rather than reuse a plan
     * made for any value: where a full-text condition's selectivity picks the plan (an index walk
     * for a broad query, the GIN index for a selective one), a generic plan assumes a few hundred
     * matches and sorted tens of thousands for a broad query.
     */
    planEachCall?: boolean;
    limit: number;
    after?: Array<number | string>;
  },
): Promise<ProblemPage> {
  const { where, keys, tier, planEachCall = false, limit, after } = options;
  const tierCount = tier ? 1 : 0;
  const keyCount = keys.length + tierCount;
  if (after !== undefined && after.length !== keys.length + tierCount)
    throw new ServiceError("invalid_input", "cursor does not fit", { field: "cursor" });
  const keyList = joinFragments(
    sql,
    keys.map((key) => key.expression),
    ", ",
  );
  const selectKeys = joinFragments(
    sql,
    keys.map((key, i) => sql`${key.expression} as ${sql(`k${i + tierCount}`)}`),
    ", ",
  );
  const listOf = (sortKeys: SortKey[]) =>
    joinFragments(
      sql,
      sortKeys.map((key) => key.expression),
      ", ",
    );
  const positionAfter = (values: Array<number | string>, sortKeys: SortKey[] = keys) =>
    sql`(${listOf(sortKeys)}) > (${joinFragments(
      sql,
      sortKeys.map((key, i) => cast(sql, values[i]!, key.type)),
      ", ",
    )})`;

  // One keyset scan: its first rows in key order. To read every match, `offset 0` keeps the
  // matching rows a subquery of their own (PostgreSQL never flattens one with an offset), read
  // without regard to order (an index of the condition, else the table) and then sorted.
  const keyNames = joinFragments(
    sql,
    keys.map((_, i) => sql`${sql(`k${i + tierCount}`)}`),
    ", ",
  );
  const firstRows = (
    select: postgres.Fragment,
    condition: postgres.Fragment,
    readEveryMatch = false,
    order: postgres.Fragment = keyList,
  ) =>
    readEveryMatch
      ? sql`select * from (${select} where ${condition} offset 0) matches order by ${keyNames} limit ${limit + 1}`
      : sql`${select} where ${condition} order by ${order} limit ${limit + 1}`;

  let query: postgres.PendingQuery<Array<ProblemRow & Record<string, number | string>>>;
  if (!tier) {
    query = sql`${firstRows(
      sql`select ${problemColumnsSql(sql)}, ${selectKeys}
        from problems p left join campaigns c on c.id = p.campaign_id`,
      sql`${where} and ${after === undefined ? sql`true` : positionAfter(after)}`,
    )}`;
  } else {
    const afterTier = after === undefined ? 0 : after[0];
    if (typeof afterTier !== "number" || !Number.isSafeInteger(afterTier)) throw badCursor();
    if (afterTier < 0 || afterTier >= tier.conditions.length) throw badCursor();
    // Tiers before the cursor's are done; the cursor's own continues after its position.
    const branches = tier.conditions.flatMap((condition, i) => {
      if (i < afterTier) return [];
      const walk = tier.walks?.[i];
      const walkKeys = walk?.keys ?? keys;
      const position =
        after !== undefined && i === afterTier ? positionAfter(after.slice(1), walkKeys) : sql`true`;
      if (walk !== undefined) {
        return [
          sql`(${firstRows(
            sql`select ${problemColumnsSql(sql)}, ${i}::int4 as k0, ${selectKeys}
              from problems t join problems p on p.id = t.id left join campaigns c on c.id = p.campaign_id`,
            sql`${walk.condition} and ${where} and ${condition} and ${position}`,
            false,
            listOf(walk.keys),
          )})`,
        ];
      }
      return [
        sql`(${firstRows(
          sql`select ${problemColumnsSql(sql)}, ${i}::int4 as k0, ${selectKeys}
            from problems p left join campaigns c on c.id = p.campaign_id`,
          sql`${where} and ${condition} and ${position}`,
          tier.readEveryMatch?.[i],
        )})`,
      ];
    });
    const outerKeys = joinFragments(
      sql,
      Array.from({ length: keyCount }, (_, i) => sql`${sql(`k${i}`)}`),
      ", ",
    );
    query = sql`
      select * from (${joinFragments(sql, branches, " union all ")}) tiers
      order by ${outerKeys}
      limit ${limit + 1}`;
  }
  const rows = await (planEachCall ? unprepared(query) : query);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page.map((row) => {
      const copy: Record<string, unknown> = { ...row };
      for (let i = 0; i < keyCount; i++) delete copy[`k${i}`];
      return copy as unknown as ProblemRow;
    }),
    next: more && last ? Array.from({ length: keyCount }, (_, i) => last[`k${i}`]!) : null,
  };
}

/** postgres.js sends a query whose options say `prepare: false` as an unnamed statement. */
function unprepared<T extends object>(query: T): T {
  (query as unknown as { options: { prepare: boolean } }).options.prepare = false;
  return query;
}

function cast(sql: Sql, value: number | string, type: SortKey["type"]): postgres.Fragment {
  if (type === "text") {
    if (typeof value !== "string") throw badCursor();
    return sql`${value}::text`;
  }
  if (typeof value !== "number") throw badCursor();
  if (type === "int4") {
    if (!Number.isSafeInteger(value)) throw badCursor();
    return sql`${value}::int4`;
  }
  return sql`${value}::float8`;
}

function badCursor(): ServiceError {
  return new ServiceError("invalid_input", "cursor is not valid here: start again without a cursor", {
    field: "cursor",
  });
}
