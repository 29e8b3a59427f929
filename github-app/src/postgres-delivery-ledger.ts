import type { Sql } from "postgres";
import type { DeliveryLedger } from "./delivery-ledger.ts";

export interface PostgresLedgerOptions {
  /** This replica's name in `taken_by`: only the replica that took a delivery finishes or drops it. */
  replicaId: string;
  /** How long a taken delivery is this replica's without a renewal; renewed every third of it. */
  leaseMs?: number;
  /** Finished deliveries older than this are forgotten (GitHub redelivers up to 3 days back). */
  keepMs?: number;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * The delivery ledger in PostgreSQL (`svc_github_app.deliveries`), shared by every replica: a
 * delivery is taken by inserting its row, so of two replicas handed the same delivery one takes
 * it and the other does nothing new. The taker renews a lease while it works: if it dies, the
 * lease lapses and a redelivery may take the delivery again. A failed handling drops its row, so
 * a redelivery tries again at once. Deliveries this replica is running are joined in memory.
 */
export function postgresDeliveryLedger(sql: Sql, options: PostgresLedgerOptions): DeliveryLedger {
  const leaseMs = options.leaseMs ?? 2 * 60 * 1000;
  const keepMs = options.keepMs ?? 7 * 24 * HOUR_MS;
  const running = new Map<string, Promise<void>>();
  let prunedAt = 0;

  const prune = async () => {
    if (Date.now() - prunedAt < HOUR_MS) return;
    prunedAt = Date.now();
    await sql`delete from svc_github_app.deliveries where taken_at < now() - ${keepMs} * interval '1 millisecond'`;
  };

  return {
    async take(id, handle) {
      const joined = running.get(id);
      if (joined) return { first: false, done: joined };
      await prune();
      const taken = await sql`
        insert into svc_github_app.deliveries (id, taken_by, lease_until)
        values (${id}, ${options.replicaId}, now() + ${leaseMs} * interval '1 millisecond')
        on conflict (id) do update
          set taken_by = excluded.taken_by, taken_at = now(), lease_until = excluded.lease_until
          where deliveries.finished_at is null and deliveries.lease_until < now()
        returning id`;
      if (taken.length === 0) return { first: false, done: Promise.resolve() };
      const mine = () => sql`id = ${id} and taken_by = ${options.replicaId}`;
      const done = (async () => {
        const renew = setInterval(() => {
          sql`update svc_github_app.deliveries set lease_until = now() + ${leaseMs} * interval '1 millisecond'
              where ${mine()} and finished_at is null`.catch(() => {});
        }, leaseMs / 3);
        renew.unref();
        try {
          await handle();
          await sql`update svc_github_app.deliveries set finished_at = now() where ${mine()}`;
        } catch (error) {
          await sql`delete from svc_github_app.deliveries where ${mine()} and finished_at is null`.catch(
            () => {},
          );
          throw error;
        } finally {
          clearInterval(renew);
          running.delete(id);
        }
      })();
      running.set(id, done);
      return { first: true, done };
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}
