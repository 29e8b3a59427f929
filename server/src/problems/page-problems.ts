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

/** A page of Problems and the sort key values of its last row, or null when nothing follows. */
export interface ProblemPage {
  rows: ProblemRow[];
  next: Array<number | string> | null;
}

/**
 * One keyset page of `problems p left join campaigns c` filtered by `where`, ordered by `keys`
 * (ascending, the last one unique), starting after `after`. Reads one row more than `limit` to
 * know whether another page follows. Keyset paging (not OFFSET) keeps each row on exactly one
 * page while rows are added, and costs the same on page 100 as on page 1.
 */
export async function pageProblems(
  sql: Sql,
  options: { where: postgres.Fragment; keys: SortKey[]; limit: number; after?: Array<number | string> },
): Promise<ProblemPage> {
  const { where, keys, limit, after } = options;
  const keyList = joinFragments(
    sql,
    keys.map((key) => key.expression),
    ", ",
  );
  let position = sql`true`;
  if (after !== undefined) {
    if (after.length !== keys.length)
      throw new ServiceError("invalid_input", "cursor does not fit", { field: "cursor" });
    const values = joinFragments(
      sql,
      keys.map((key, i) => cast(sql, after[i]!, key.type)),
      ", ",
    );
    position = sql`(${keyList}) > (${values})`;
  }
  const selectKeys = joinFragments(
    sql,
    keys.map((key, i) => sql`${key.expression} as ${sql(`k${i}`)}`),
    ", ",
  );
  const rows = await sql<Array<ProblemRow & Record<string, number | string>>>`
    select ${problemColumnsSql(sql)}, ${selectKeys}
    from problems p left join campaigns c on c.id = p.campaign_id
    where ${where} and ${position}
    order by ${keyList}
    limit ${limit + 1}`;
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page.map((row) => {
      const copy: Record<string, unknown> = { ...row };
      for (let i = 0; i < keys.length; i++) delete copy[`k${i}`];
      return copy as unknown as ProblemRow;
    }),
    next: more && last ? keys.map((_, i) => last[`k${i}`]!) : null,
  };
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
