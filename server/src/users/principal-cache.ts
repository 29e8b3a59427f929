import type { Pool, Sql } from "../core/db/connect-sql.ts";
import type { Principal } from "./principal.ts";

/** The channel migration 036's triggers notify when anything a principal holds changes. */
export const AUTH_CHANGED_CHANNEL = "svc_auth_changed";

/**
 * How long an entry may serve at most. Revocation does not wait for it (the notice empties the
 * cache at once); it bounds what a notice lost between a dropped listening connection and its
 * reconnection could leave behind.
 */
const ENTRY_TTL_MS = 60_000;

/** At most this many tokens are remembered; beyond, the oldest entry goes. */
const MAX_ENTRIES = 10_000;

/** One verified token: who it stands for, until when, and how its last use is recorded. */
export interface CachedPrincipal {
  principal: Principal;
  /** When the token itself expires (an OAuth access token), if it does. */
  expiresAt?: Date;
  /** Records the token's use (to the minute); run at most once a minute per entry. */
  touch(): Promise<void>;
}

interface Entry extends CachedPrincipal {
  validUntil: number;
  touchedAt: number;
}

/**
 * The principals of recently verified bearer tokens, per connection pool (one per replica), so a
 * request on a known token costs no statement (issue 36). It serves only while its LISTEN on
 * AUTH_CHANGED_CHANNEL stands: every notice, and every (re)connection of the listener, empties
 * it. A lookup that began before a notice is not stored after it (the generation check), so a
 * revocation racing a lookup cannot be undone by it.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private listening = false;

  constructor(pool: Pool) {
    // The listening connection lives as long as the pool; a failed LISTEN leaves the cache off.
    void pool
      .listen(
        AUTH_CHANGED_CHANNEL,
        () => this.clear(),
        () => {
          // Called on every (re)connection: notices sent while it was down are lost, so forget all.
          this.clear();
          this.listening = true;
        },
      )
      .catch(() => {
        this.listening = false;
      });
  }

  /** The cached principal for `key`, recording its use when a minute has passed since the last record. */
  async get(key: string, now = Date.now()): Promise<Principal | undefined> {
    if (!this.listening) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (now >= entry.validUntil) {
      this.entries.delete(key);
      return undefined;
    }
    if (now - entry.touchedAt >= ENTRY_TTL_MS) {
      entry.touchedAt = now;
      await entry.touch();
    }
    return entry.principal;
  }

  /** The generation a lookup starts in; pass it back to `set`. */
  begin(): number {
    return this.generation;
  }

  /** Stores a looked-up principal unless a notice came since `generation` was taken. */
  set(key: string, generation: number, found: CachedPrincipal, now = Date.now()): void {
    if (!this.listening || generation !== this.generation) return;
    const validUntil = Math.min(now + ENTRY_TTL_MS, found.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { ...found, validUntil, touchedAt: now });
  }

  /** Empties the cache now (forgetPrincipals). */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

const caches = new WeakMap<object, PrincipalCache>();

/**
 * The cache of a connection pool, started on first use. A transaction (no `listen`) has none: a
 * lookup inside one always reads the database.
 */
export function principalCacheOf(sql: Sql): PrincipalCache | undefined {
  if (typeof (sql as Partial<Pool>).listen !== "function") return undefined;
  let cache = caches.get(sql);
  if (cache === undefined) {
    cache = new PrincipalCache(sql as Pool);
    caches.set(sql, cache);
  }
  return cache;
}

/**
 * Forgets this process's cached principals after a write that changes what a token stands for,
 * so this process's own next request sees it at once. Other replicas learn it from the notice the
 * write's trigger sends (migration 036), a few milliseconds later; so does this one when the
 * write ran in a transaction (which has no cache of its own to clear).
 */
export function forgetPrincipals(sql: Sql): void {
  if (typeof (sql as Partial<Pool>).listen === "function") caches.get(sql)?.clear();
}
