import { LruMap } from "../core/cache/lru-map.ts";
import type { ProblemRevisionRow } from "./problem-revision.ts";

/**
 * How many revision rows a process keeps, and how many characters of text (statement, context,
 * changelog, plus an allowance for the rest of the row) they may hold together: some 40 MB of heap
 * at most. A read beyond them costs what it did before the cache: the row comes from PostgreSQL.
 */
const REVISIONS_CACHED = 20_000;
const CHARACTERS_CACHED = 24_000_000;

/** About what a row holds, in characters: its texts and an allowance per binding and skill. */
function rowWeight(row: ProblemRevisionRow): number {
  const texts = row.statement_md.length + (row.context_md?.length ?? 0) + (row.changelog_md?.length ?? 0);
  return 500 + texts + 300 * (row.verifier_input_bindings.length + row.skill_refs.length);
}

/**
 * Revision rows by id, for reads of a Problem's revision that need not carry the revision back
 * from PostgreSQL. A revision never changes (migration 002's triggers refuse every update and
 * delete) and its id is random, so a row read once holds for the life of the process on every
 * replica: nothing to invalidate. What may change (the Problem, which revision is current, its
 * visibility, the effective sealing) is never cached here: every read still selects it.
 * A row is kept from its second read on (admitOnRepeat): a crawl through every Problem reads each
 * once, and keeping those rows would evict the ones in use.
 * Rows are frozen, since every reader shares them.
 */
const revisions = new LruMap<string, ProblemRevisionRow>(REVISIONS_CACHED, {
  maxWeight: CHARACTERS_CACHED,
  weigh: rowWeight,
  admitOnRepeat: true,
});

/**
 * The revision id a reference (id or slug, with the revision number asked for, if any) resolved to
 * last: only a guess, which the read's statement checks against the row it finds (a new revision
 * published, or a number asked for, simply misses).
 */
const lastResolved = new LruMap<string, string>(REVISIONS_CACHED);

const resolutionKey = (reference: string, number: number | undefined) => `${number ?? ""} ${reference}`;

/** The cached revision `reference` (and `number`) resolved to last, if still cached. */
export function guessedRevision(
  reference: string,
  number: number | undefined,
): ProblemRevisionRow | undefined {
  const id = lastResolved.get(resolutionKey(reference, number));
  return id === undefined ? undefined : revisions.get(id);
}

/**
 * Offers the cache a row `reference` (and `number`) resolved to, and returns it frozen: the cached
 * row when there is one. What it resolved to is remembered only while the row is cached (a guess
 * is worth a statement's payload only then).
 */
export function rememberRevision(
  reference: string,
  number: number | undefined,
  row: ProblemRevisionRow,
): ProblemRevisionRow {
  const key = resolutionKey(reference, number);
  const cached = revisions.get(row.id);
  if (cached !== undefined) {
    lastResolved.set(key, row.id);
    return cached;
  }
  const frozen = deepFreeze(row);
  if (revisions.set(row.id, frozen)) lastResolved.set(key, row.id);
  return frozen;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !(value instanceof Date) && !Object.isFrozen(value)) {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}
