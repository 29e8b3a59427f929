import { setTimeout as sleep } from "node:timers/promises";
import type { Pool } from "../db/connect-sql.ts";
import type { SandboxBudgetSettings } from "./sandbox-budget.ts";

/** How often a waiting process looks again when no release woke it (a release on another host's row, a lost notice). */
const RETRY_MS = 250;
const RELEASED = "svc_sandbox_lease_released";

/**
 * The host's share of the sandbox budget, held in PostgreSQL so that `serve` and every worker
 * process on one host run no more checkers, memory and per-user checkers than the host's budget
 * (docs/operations.md, "Sandbox budget"). `acquire` waits until a lease fits and returns its
 * release. Leases of processes that died are void (migration 029) and swept by the next acquire.
 * Across processes there is no queue order: a waiting process takes the first lease that fits
 * when it looks (woken by each release); within a process, budgetedSandboxRunner keeps arrival order.
 */
export interface HostSandboxLeases {
  acquire(owner: string, memory_mb: number): Promise<() => Promise<void>>;
  /** Ends the holder connection: this process's leases are void from then on. */
  close(): Promise<void>;
}

export function hostSandboxLeases(
  pool: Pool,
  host: string,
  settings: Pick<SandboxBudgetSettings, "slots" | "memory_mb" | "per_user">,
): HostSandboxLeases {
  let holder: Promise<{ pid: number; release: () => void }> | undefined;
  /** Acquires of this process waiting for a lease, woken by every release on the host. */
  const waiting = new Set<() => void>();
  let listening: Promise<{ unlisten(): Promise<void> }> | undefined;
  const holderConnection = () => {
    holder ??= (async () => {
      // A connection of its own for as long as the process lives: its backend names the holder.
      const reserved = await pool.reserve();
      const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
      return { pid: row!.pid, release: () => reserved.release() };
    })();
    return holder;
  };

  const tryAcquire = async (owner: string, memory: number): Promise<number | null> => {
    const me = await holderConnection();
    return await pool.begin(async (tx) => {
      // One taker per host at a time, so the counts read below are the counts written.
      await tx`select pg_advisory_xact_lock(hashtext('svc.sandbox_leases'), hashtext(${host}))`;
      await tx`
        delete from sandbox_leases l where l.host = ${host}
          and not exists (select from pg_stat_activity a
                          where a.pid = l.holder_pid and a.backend_start = l.holder_started_at)`;
      const [use] = await tx<{ running: number; memory: number; mine: number }[]>`
        select count(*)::int as running, coalesce(sum(memory_mb), 0)::int as memory,
          count(*) filter (where owner = ${owner})::int as mine
        from sandbox_leases where host = ${host}`;
      const fits =
        use!.running < settings.slots &&
        (use!.running === 0 || use!.memory + memory <= settings.memory_mb) &&
        use!.mine < settings.per_user;
      if (!fits) return null;
      // backend_start is copied in SQL: through a JS Date it would lose its microseconds and
      // never match again, and every other process would take this lease for a dead one.
      const [lease] = await tx<{ id: string }[]>`
        insert into sandbox_leases (host, holder_pid, holder_started_at, owner, memory_mb)
        select ${host}, pid, backend_start, ${owner}, ${memory} from pg_stat_activity where pid = ${me.pid}
        returning id`;
      return Number(lease!.id);
    });
  };

  return {
    async acquire(owner, memory) {
      listening ??= pool.listen(RELEASED, (released) => {
        if (released !== host) return;
        for (const wake of waiting) wake();
      });
      await listening;
      for (;;) {
        const id = await tryAcquire(owner.slice(0, 64), memory);
        if (id !== null) {
          return async () => {
            await pool`delete from sandbox_leases where id = ${id}`;
            await pool`select pg_notify(${RELEASED}, ${host})`;
          };
        }
        let wake: () => void = () => {};
        const woken = new Promise<void>((resolve) => {
          wake = resolve;
        });
        waiting.add(wake);
        await Promise.race([woken, sleep(RETRY_MS)]);
        waiting.delete(wake);
      }
    },
    async close() {
      const [current, listener] = [holder, listening];
      holder = undefined;
      listening = undefined;
      (await current)?.release();
      await (await listener)?.unlisten();
    },
  };
}
