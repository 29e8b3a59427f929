import { PENDING_CONFORMANCE } from "../conformance/pending-conformance.ts";
import type { Sql } from "../core/db/connect-sql.ts";

/** An implementation whose conformance fixtures have not run yet. */
export interface PendingConformance {
  verifier_implementation_id: string;
  verifier_contract_id: string;
  stage_key: string;
  version_number: number;
  created_at: string;
  age_seconds: number;
}

/** A verification run not finished yet. */
export interface WaitingRun {
  verification_run_id: string;
  submission_id: string;
  status: "queued" | "running";
  trigger: string;
  created_at: string;
  started_at: string | null;
  age_seconds: number;
}

/** A live webhook subscription whose deliveries fail. */
export interface FailingDelivery {
  event_subscription_id: string;
  user_id: string;
  url: string | null;
  /** Consecutive failed attempts at the event after the cursor. */
  failures: number;
  retry_at: string | null;
  last_attempted_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
}

/** What `svc-server stuck` prints: each list oldest first, at most `limit` rows, with its full count. */
export interface StuckWork {
  conformance_pending: { total: number; items: PendingConformance[] };
  runs_waiting: { total: number; items: WaitingRun[] };
  deliveries_failing: { total: number; items: FailingDelivery[] };
}

/**
 * The work an operator looks at when something seems stuck: implementations (not yanked) whose
 * conformance is still pending, runs queued or running, and live webhook subscriptions with
 * failed deliveries and their last error. Ages are whole seconds up to `now`.
 */
export async function listStuckWork(sql: Sql, now: Date, limit = 100): Promise<StuckWork> {
  const age = (from: Date) => Math.max(0, Math.floor((now.getTime() - from.getTime()) / 1000));
  const [pending, runs, deliveries] = await Promise.all([
    sql<
      {
        id: string;
        verifier_contract_id: string;
        stage_key: string;
        version_number: number;
        created_at: Date;
        total: number;
      }[]
    >`
      select id, verifier_contract_id, stage_key, version_number, created_at, count(*) over ()::int as total
      from verifier_implementations
      where ${sql.unsafe(PENDING_CONFORMANCE)}
      order by created_at, id limit ${limit}`,
    sql<
      {
        id: string;
        submission_id: string;
        status: "queued" | "running";
        trigger: string;
        created_at: Date;
        started_at: Date | null;
        total: number;
      }[]
    >`
      select id, submission_id, status, trigger, created_at, started_at, count(*) over ()::int as total
      from verification_runs where status <> 'finished'
      order by created_at, id limit ${limit}`,
    sql<
      {
        id: string;
        user_id: string;
        url: string | null;
        failures: number;
        retry_at: Date | null;
        attempted_at: Date | null;
        status_code: number | null;
        error: string | null;
        total: number;
      }[]
    >`
      select s.id, s.user_id, s.url, s.failures, s.retry_at, d.attempted_at, d.status_code, d.error,
        count(*) over ()::int as total
      from event_subscriptions s
      left join lateral (
        select attempted_at, status_code, error from event_deliveries
        where subscription_id = s.id and not delivered order by id desc limit 1) d on true
      where s.failures > 0 and s.ended_at is null
      order by d.attempted_at nulls last, s.id limit ${limit}`,
  ]);
  return {
    conformance_pending: {
      total: pending[0]?.total ?? 0,
      items: pending.map((row) => ({
        verifier_implementation_id: row.id,
        verifier_contract_id: row.verifier_contract_id,
        stage_key: row.stage_key,
        version_number: row.version_number,
        created_at: row.created_at.toISOString(),
        age_seconds: age(row.created_at),
      })),
    },
    runs_waiting: {
      total: runs[0]?.total ?? 0,
      items: runs.map((row) => ({
        verification_run_id: row.id,
        submission_id: row.submission_id,
        status: row.status,
        trigger: row.trigger,
        created_at: row.created_at.toISOString(),
        started_at: row.started_at?.toISOString() ?? null,
        age_seconds: age(row.created_at),
      })),
    },
    deliveries_failing: {
      total: deliveries[0]?.total ?? 0,
      items: deliveries.map((row) => ({
        event_subscription_id: row.id,
        user_id: row.user_id,
        url: row.url,
        failures: row.failures,
        retry_at: row.retry_at?.toISOString() ?? null,
        last_attempted_at: row.attempted_at?.toISOString() ?? null,
        last_status_code: row.status_code,
        last_error: row.error,
      })),
    },
  };
}
