import { type FinishedStage, runContinues, runVerdict, type StageResult } from "@svc/app";
import type { ContractStage } from "@svc/schemas";
import type postgres from "postgres";
import { commitWithoutFlush } from "../core/db/commit-without-flush.ts";
import { genericPlans } from "../core/db/generic-plans.ts";
import { groupedStatementOn } from "../core/db/grouped-statement.ts";
import { pipelinedTransaction } from "../core/db/pipelined-transaction.ts";
import { TaskName } from "../core/jobs/task-name.ts";
import { runsFinished, runWait } from "../core/metrics/metrics.ts";
import type { Services } from "../core/services/services.ts";
import { appendEventsCtes, eventFromJson, eventRecord } from "../events/append-event.ts";
import { recordRunFinished, runFinishedEvent } from "./record-run-finished.ts";
import {
  type RunContext,
  type RunContextRow,
  runContext,
  selectRunContext,
  shareContexts,
} from "./run-context.ts";
import { type AwaitingAttestationOutcome, runExternalStage } from "./run-external-stage.ts";
import { type AwaitingReviewOutcome, runReviewStage } from "./run-review-stage.ts";
import { type FinishedStageOutcome, runSandboxStage, type StageOutcome } from "./run-sandbox-stage.ts";
import type { StageMechanism } from "./stage-record.ts";

/** A run found with a stage half-run this many times finishes `error` (its stage keeps killing workers). */
export const MAX_RESTARTS = 3;
/** How often a worker executing a run says it is alive. */
export const HEARTBEAT_MS = 10_000;

export type ExecuteResult =
  | { kind: "finished"; result: StageResult }
  /** Already finished by an earlier execution: nothing done. */
  | { kind: "skipped" }
  /** A stage cannot start yet; execute the run again later. */
  | { kind: "waiting"; reason: string }
  /**
   * A review stage waits on its ReviewProcess: nothing to do until the process finishes, which
   * enqueues the run again. Not polled, not bounded by MAX_WAIT_MS, not a stalled run.
   */
  | AwaitingReviewOutcome
  /** An external stage waits for its partner's attestation, or its deadline; likewise not polled. */
  | AwaitingAttestationOutcome;

/** A run as the statement that starts it returns it, its context included. */
type StartedRun = RunContextRow & {
  created_at: Date;
  restarts: number;
  half_run: boolean;
  withdrawn_before_start: boolean;
  finished_stages: FinishedStage[];
};

/** What executeVerificationRuns did: the asked run's outcome, and each companion's. */
export interface BatchExecution {
  /** Rejected when the machinery failed on the asked run. */
  lead: PromiseSettledResult<ExecuteResult>;
  companions: Array<{ run_id: string; outcome: PromiseSettledResult<ExecuteResult> }>;
}

/**
 * Executes a VerificationRun (spec 2.4 and 3): moves it to `running`, runs its stages in Contract
 * order, each committed as it finishes, stops at the first that does not pass, and finishes the
 * run with its result, score and evidence, written once. Safe to call again after a crash: the
 * finished stages are kept and the half-run one starts over. Throws only when the machinery
 * fails; the caller retries, and on its last attempt calls `finishWithError`.
 */
export async function executeVerificationRun(services: Services, runId: string): Promise<ExecuteResult> {
  const { lead } = await executeVerificationRuns(services, runId, 0);
  if (lead.status === "rejected") throw lead.reason;
  return lead.value;
}

/**
 * executeVerificationRun, taking with the run up to `companions` runs of the same Contract that
 * are still `queued`, when every stage of that Contract is a sandbox stage and every
 * implementation of it is a builtin: such runs cost a few milliseconds of this process's CPU, so
 * the round trips around them are most of their cost, and runs executed together share those
 * (groupedStatement). A companion is taken only with its job: the statement that starts the runs
 * completes the companions' jobs while no worker holds them (graphile-worker's `complete_jobs`
 * leaves a locked job alone), so every run is still executed by one execution at a time. The
 * caller settles each companion's outcome as it does its own run's: a waiting companion is
 * enqueued for later, a failed one enqueued again (its job is gone). Throws only when the
 * statement that starts the runs fails, which takes nothing.
 */
export async function executeVerificationRuns(
  services: Services,
  runId: string,
  companions: number,
): Promise<BatchExecution> {
  const runs = await startRuns(services, runId, companions);
  // A run's first start (none of its stages begun): how long it waited in the queue.
  const now = services.clock().getTime();
  for (const run of runs) {
    if (!run.half_run && run.finished_stages.length === 0)
      runWait.observe((now - run.created_at.getTime()) / 1000);
  }
  const lead = runs.find((run) => run.id === runId);
  const others = runs
    .filter((run) => run.id !== runId)
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  const [leadOutcome, ...outcomes] = await Promise.allSettled([
    lead ? continueRun(services, lead) : Promise.resolve<ExecuteResult>({ kind: "skipped" }),
    ...others.map((run) => continueRun(services, run)),
  ]);
  for (const outcome of [leadOutcome!, ...outcomes]) {
    if (outcome.status === "fulfilled" && outcome.value.kind === "finished") {
      runsFinished.labels(outcome.value.result).inc();
    }
  }
  return {
    lead: leadOutcome!,
    companions: others.map((run, i) => ({ run_id: run.id, outcome: outcomes[i]! })),
  };
}

/**
 * One statement: the runs move to running and say what the steps below need to know of them,
 * their context included. Bookkeeping, so its commit does not wait for the disk: a PostgreSQL
 * crash that loses it leaves the runs `queued` with their jobs, as if this execution never
 * began, and the jobs run them again. It runs in a transaction of its own with generic plans
 * (genericPlans): PostgreSQL planned this statement afresh for every batch, about 0.7 ms, a third
 * of its cost, where its generic plan is the same and is planned once per connection. BEGIN, the
 * setting, the statement and COMMIT go in one write (pipelinedTransaction).
 */
async function startRuns(services: Services, runId: string, companions: number): Promise<StartedRun[]> {
  // The stage results of each run are read by run id alone (conditions in FILTER and bool_or):
  // with kind = 'sandbox' in a WHERE, PostgreSQL took the partial index of sandbox stages by
  // implementation (016) and walked every sandbox stage of the table for each run.
  const { sql } = services;
  const now = services.clock();
  const taken =
    companions > 0
      ? sql`
    -- The lead's Contract, when its runs may go together: checked once, not per candidate.
    lead as (
      select r.verifier_contract_id from verification_runs r
      where r.id = ${runId} and r.status <> 'finished'
        and not exists (select from verifier_contracts vc, jsonb_array_elements(vc.document->'stages') stage
                        where vc.id = r.verifier_contract_id and stage->>'kind' <> 'sandbox')
        and not exists (select from verifier_implementations vi
                        where vi.verifier_contract_id = r.verifier_contract_id
                          and vi.runtime->>'image_ref' not like 'svc-builtin/%')
    ),
    -- The oldest first, in the order of their index (migration 024), stopping at the limit.
    candidates as (
      select r.id, j.id as job_id
      from verification_runs r
      join graphile_worker.jobs j on j.key = r.id and j.task_identifier = ${TaskName.verifyRun} and j.locked_at is null
      where r.verifier_contract_id = (select verifier_contract_id from lead) and r.status = 'queued'
        and r.id <> ${runId}
      order by r.created_at
      limit ${companions}
      for update of r skip locked
    ),
    taken as (
      select done.key as id from graphile_worker.complete_jobs(array(select job_id from candidates)) done
    ),`
      : sql`taken as (select null::text as id where false),`;
  return await pipelinedTransaction(sql, async (tx, commitWith) => {
    // This transaction holds nothing but the statement: its commit is the statement's own. The
    // setting is sent first (execute), so it is in force when the statement is planned.
    const settings =
      tx`select from (${genericPlans(tx)}) generic_plans, (${commitWithoutFlush(sql)}) no_flush`.execute();
    const [started] = await Promise.all([
      commitWith(tx<StartedRun[]>`
    with ${taken}
    started as (
      update verification_runs
      set status = 'running', started_at = coalesce(started_at, ${now}), heartbeat_at = ${now},
        restarts = restarts + (select count(*) filter (where st.status = 'running' and st.kind = 'sandbox')::int
                               from verification_stage_results st where st.verification_run_id = verification_runs.id)
      where id = any(array_append(array(select id from taken), ${runId}::text)) and status <> 'finished'
      returning id, submission_id, problem_revision_id, verifier_contract_id, inputs, created_at, restarts,
        coalesce((select bool_or(st.status = 'running' and st.kind = 'sandbox') from verification_stage_results st
                  where st.verification_run_id = verification_runs.id), false) as half_run,
        (select s.status = 'withdrawn' from submissions s where s.id = submission_id)
          and not exists (select 1 from verification_stage_results st where st.verification_run_id = verification_runs.id)
          as withdrawn_before_start,
        coalesce((select json_agg(json_build_object('stage_key', stage_key, 'kind', kind, 'result', result,
                    'score', score, 'evidence_md', evidence_md) order by position)
                  from verification_stage_results st
                  where st.verification_run_id = verification_runs.id and st.status = 'finished'), '[]') as finished_stages
    )
    ${selectRunContext(sql, sql`started`)}`),
      settings,
    ]);
    shareContexts(started);
    return started;
  });
}

/** The rest of an execution, from the statement that started the run. */
async function continueRun(services: Services, run: StartedRun): Promise<ExecuteResult> {
  const { sql } = services;
  const runId = run.id;
  if (run.half_run && run.restarts >= MAX_RESTARTS) {
    await finishWithError(
      services,
      runId,
      `the run's stage stopped its worker ${run.restarts} times; the service gave up`,
    );
    return { kind: "finished", result: "error" };
  }
  if (run.withdrawn_before_start) {
    await finishWithdrawn(services, runId);
    return { kind: "finished", result: "inconclusive" };
  }
  const context = runContext(run);

  const heartbeat = setInterval(() => {
    sql`update verification_runs set heartbeat_at = ${services.clock()} where id = ${runId} and status = 'running'`.catch(
      (error: unknown) => services.log.warn({ err: error, runId }, "verification heartbeat failed"),
    );
  }, HEARTBEAT_MS);
  heartbeat.unref();
  try {
    const done = run.finished_stages;
    const stageCount = context.contract.stages.length;
    for (let position = done.length; position < stageCount; position++) {
      if (!runContinues(done)) break;
      const stage = context.contract.stages[position]!;
      // The stage is `queued` until its mechanism really starts: a stage waiting for its image or
      // its conformance is not half-run, so re-polling it never counts as a restart. A sandbox
      // stage gets its row when it starts or waits (startStage and sayWhyQueued write it either
      // way); review and external stages read theirs before they start.
      if (stage.kind !== "sandbox") await queueStage(services, runId, position, stage);
      let started = false;
      const start = async (mechanism?: StageMechanism) => {
        await startStage(services, runId, position, stage, mechanism ?? null);
        started = true;
      };
      const outcome = await runStage(services, context, position, stage, start);
      if (outcome.kind === "awaiting_review" || outcome.kind === "awaiting_attestation") return outcome;
      // The bound (SVC_STAGE_WAIT_SECONDS) counts from the run's creation: restarts never extend it.
      const waitSeconds = services.sandboxBudget.stage_wait_seconds;
      if (
        !started &&
        outcome.kind === "wait" &&
        services.clock().getTime() - run.created_at.getTime() < waitSeconds * 1000
      ) {
        await sayWhyQueued(services, runId, position, stage, `waiting: ${outcome.reason}`);
        return { kind: "waiting", reason: outcome.reason };
      }
      if (!started) await start();
      const finishing: FinishedStageOutcome =
        outcome.kind === "wait"
          ? {
              kind: "finished",
              result: "inconclusive",
              score: null,
              evidence_md: `${outcome.reason}; the run waited ${waitSeconds} s (SVC_STAGE_WAIT_SECONDS) and gave up`,
              mechanism: null,
              log: null,
              evidence_files: [],
            }
          : outcome;
      const finished: FinishedStage = {
        stage_key: stage.key,
        kind: stage.kind,
        result: finishing.result,
        score: finishing.score,
        evidence_md: finishing.evidence_md,
      };
      const through = [...done, finished];
      if (position === stageCount - 1 || !runContinues(through)) {
        // The run's last stage: its result, the verdict and the event commit together, once.
        const verdict = runVerdict(through, {
          stage_count: stageCount,
          result_kind: context.contract.result_kind,
        });
        if (await finishStageAndRun(services, context, position, finishing, verdict)) {
          return { kind: "finished", result: verdict.result };
        }
      } else if (await finishStage(services, runId, position, finishing)) {
        done.push(finished);
        continue;
      }
      // Another execution finished the stage first: what it recorded is what counts.
      done.splice(0, done.length, ...(await finishedStages(sql, runId)));
    }
    const verdict = runVerdict(done, {
      stage_count: stageCount,
      result_kind: context.contract.result_kind,
    });
    await sql.begin(async (tx) => {
      const finishedAt = services.clock();
      const finished = await tx`
        update verification_runs
        set status = 'finished', result = ${verdict.result}, score = ${verdict.score},
          evidence_md = ${verdict.evidence_md}, finished_at = ${finishedAt}
        where id = ${runId} and status <> 'finished'`;
      if (finished.count > 0) await recordRunFinished(tx, runId, finishedAt, context);
    });
    return { kind: "finished", result: verdict.result };
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * A Submission withdrawn before its run began a stage is not examined: the run finishes
 * `inconclusive` (nothing settled about the work), with no stage result. A run already under way
 * when the Submission is withdrawn finishes normally, so a verdict is never half-recorded.
 */
async function finishWithdrawn(services: Services, runId: string): Promise<void> {
  const { sql } = services;
  await sql.begin(async (tx) => {
    const finishedAt = services.clock();
    const finished = await tx`
      update verification_runs
      set status = 'finished', result = 'inconclusive', score = null,
        evidence_md = '**inconclusive**

The submission was withdrawn before its verification began; nothing was run.',
        finished_at = ${finishedAt}
      where id = ${runId} and status <> 'finished'`;
    if (finished.count > 0) await recordRunFinished(tx, runId, finishedAt);
  });
}

/** Runs one stage; `start` marks it running, called once its mechanism is about to run. */
async function runStage(
  services: Services,
  context: RunContext,
  position: number,
  stage: ContractStage,
  start: (mechanism?: StageMechanism) => Promise<void>,
): Promise<StageOutcome | AwaitingReviewOutcome | AwaitingAttestationOutcome> {
  switch (stage.kind) {
    case "sandbox":
      return await runSandboxStage(services, context, stage, start);
    case "review":
      await start();
      return await runReviewStage(services, context, stage);
    case "external":
      return await runExternalStage(services, context.run_id, position, stage, start);
    default: {
      const never: never = stage.kind;
      throw new Error(`unknown stage kind ${String(never)}`);
    }
  }
}

/** The stage's row, `queued` until it starts; kept as it is when the run is executed again. */
async function queueStage(
  services: Services,
  runId: string,
  position: number,
  stage: ContractStage,
): Promise<void> {
  await services.sql`
    insert into verification_stage_results (verification_run_id, position, stage_key, kind, status)
    values (${runId}, ${position}, ${stage.key}, ${stage.kind}, 'queued')
    on conflict (verification_run_id, position) do nothing`;
}

/** A waiting stage's record says what it waits for, so reads show why the run has not moved. */
async function sayWhyQueued(
  services: Services,
  runId: string,
  position: number,
  stage: ContractStage,
  reason: string,
): Promise<void> {
  await services.sql`
    insert into verification_stage_results (verification_run_id, position, stage_key, kind, status, evidence_md)
    values (${runId}, ${position}, ${stage.key}, ${stage.kind}, 'queued', ${reason.slice(0, 20_000)})
    on conflict (verification_run_id, position) do update set evidence_md = excluded.evidence_md
    where verification_stage_results.status = 'queued'`;
}

/**
 * Marks the stage running (its row written here when it has none yet). Bookkeeping, so its commit
 * does not wait for the disk: only a PostgreSQL crash loses it, and the run is then executed
 * again from the stages whose results were flushed, this one started over. What it guards, a
 * stage that keeps killing its workers (MAX_RESTARTS), is a worker's death, which loses nothing.
 */
async function startStage(
  services: Services,
  runId: string,
  position: number,
  stage: ContractStage,
  mechanism: StageMechanism | null,
): Promise<void> {
  await startStages(services.sql, {
    run_id: runId,
    position,
    stage_key: stage.key,
    kind: stage.kind,
    started_at: services.clock(),
    mechanism,
  });
}

/** startStage's statement, for every run starting a stage at the same time (groupedStatement). */
const startStages = groupedStatementOn(
  async (
    sql: Services["sql"],
    starts: Array<{
      run_id: string;
      position: number;
      stage_key: string;
      kind: string;
      started_at: Date;
      mechanism: StageMechanism | null;
    }>,
  ) => {
    await sql`
      with no_flush as (${commitWithoutFlush(sql)})
      insert into verification_stage_results (verification_run_id, position, stage_key, kind, status, started_at, mechanism)
      select x.run_id, x.position, x.stage_key, x.kind, 'running', x.started_at, x.mechanism
      from jsonb_to_recordset(${sql.json(starts as unknown as postgres.JSONValue)})
        as x(run_id text, position int, stage_key text, kind text, started_at timestamptz, mechanism jsonb), no_flush
      on conflict (verification_run_id, position) do update
      -- A half-run sandbox stage starts over; a review stage resumed on its process keeps its start.
      -- The mechanism is the one starting now; a resumed review stage keeps its process's.
      set status = 'running',
        mechanism = coalesce(excluded.mechanism, verification_stage_results.mechanism),
        started_at = case when verification_stage_results.kind = 'review' and verification_stage_results.started_at is not null
          then verification_stage_results.started_at else excluded.started_at end
      where verification_stage_results.status <> 'finished'`;
    return starts.map(() => undefined);
  },
);

/** The columns of a stage's end, as finishStage writes them (finishStagesAndRuns sets the same from its JSON). */
function stageEnd(sql: Services["sql"], outcome: FinishedStageOutcome, at: Date) {
  return sql`
    status = 'finished', result = ${outcome.result}, score = ${outcome.score}, evidence_md = ${outcome.evidence_md},
    mechanism = ${outcome.mechanism ? sql.json(outcome.mechanism as unknown as postgres.JSONValue) : null},
    log = ${outcome.log ? sql.json(outcome.log as unknown as postgres.JSONValue) : null},
    evidence_files = ${sql.json(outcome.evidence_files)}, finished_at = ${at}`;
}

/** Records the end of a stage the run goes on from; false when it was already finished. */
async function finishStage(
  services: Services,
  runId: string,
  position: number,
  outcome: FinishedStageOutcome,
): Promise<boolean> {
  const { sql } = services;
  const updated = await sql`
    update verification_stage_results set ${stageEnd(sql, outcome, services.clock())}
    where verification_run_id = ${runId} and position = ${position} and status <> 'finished'`;
  return updated.count > 0;
}

/**
 * Records the end of the run's last stage, the run's verdict and its `verification.run_finished`
 * event in one statement, so one round trip and one commit (which waits for the disk: the caller
 * is told the verdict is final). The run finishes only with the stage, and the event only with
 * the run. False when the stage was already finished by another execution: nothing is written.
 */
async function finishStageAndRun(
  services: Services,
  context: RunContext,
  position: number,
  outcome: FinishedStageOutcome,
  verdict: ReturnType<typeof runVerdict>,
): Promise<boolean> {
  const finishedAt = services.clock();
  return await finishStagesAndRuns(services.sql, {
    run_id: context.run_id,
    position,
    result: outcome.result,
    score: outcome.score,
    evidence_md: outcome.evidence_md,
    mechanism: outcome.mechanism,
    log: outcome.log,
    evidence_files: outcome.evidence_files,
    finished_at: finishedAt,
    run_result: verdict.result,
    run_score: verdict.score,
    run_evidence_md: verdict.evidence_md,
    event: eventRecord(runFinishedEvent(context.run_id, finishedAt, context)),
  });
}

/**
 * finishStageAndRun's statement, for every run finishing at the same time (groupedStatement):
 * their verdicts and events share one commit.
 */
const finishStagesAndRuns = groupedStatementOn(
  async (
    sql: Services["sql"],
    ends: Array<{
      run_id: string;
      position: number;
      result: string;
      score: number | null;
      evidence_md: string;
      mechanism: unknown;
      log: unknown;
      evidence_files: unknown;
      finished_at: Date;
      run_result: string;
      run_score: number | null;
      run_evidence_md: string;
      event: postgres.JSONValue;
    }>,
  ) => {
    // Generic plans, as for startRuns: BEGIN, the setting, the statement and COMMIT in one write.
    const [row] = await pipelinedTransaction(sql, async (tx, commitWith) => {
      const settings = tx`select from (${genericPlans(tx)}) generic_plans`.execute();
      const [rows] = await Promise.all([
        commitWith(tx<{ finished: string[] | null }[]>`
      with ends as (
        select * from jsonb_to_recordset(${sql.json(ends as unknown as postgres.JSONValue)})
          as x(run_id text, position int, result text, score double precision, evidence_md text, mechanism jsonb,
               log jsonb, evidence_files jsonb, finished_at timestamptz, run_result text, run_score double precision,
               run_evidence_md text, event jsonb)
      ),
      stage as (
        update verification_stage_results st
        set status = 'finished', result = e.result, score = e.score, evidence_md = e.evidence_md,
          mechanism = e.mechanism, log = e.log, evidence_files = e.evidence_files, finished_at = e.finished_at
        from ends e
        -- By key (= any(array)): joined to the JSON rows alone, PostgreSQL guessed a hundred of them
        -- and hashed a scan of every stage result.
        where st.verification_run_id = any(array(select run_id from ends))
          and st.verification_run_id = e.run_id and st.position = e.position and st.status <> 'finished'
        returning st.verification_run_id
      ),
      finished_run as (
        update verification_runs r
        set status = 'finished', result = e.run_result, score = e.run_score, evidence_md = e.run_evidence_md,
          finished_at = e.finished_at
        from ends e
        where r.id = any(array(select verification_run_id from stage)) and r.id = e.run_id and r.status <> 'finished'
        returning r.id
      ),
      ${appendEventsCtes(
        sql,
        sql`(select ev.* from ends e join finished_run f on f.id = e.run_id, ${eventFromJson(sql, sql`e.event`, "ev")})`,
      )}
      select (select array_agg(verification_run_id) from stage) as finished`),
        settings,
      ]);
      return rows;
    });
    const finished = new Set(row?.finished ?? []);
    return ends.map((end) => finished.has(end.run_id));
  },
);

async function finishedStages(sql: Services["sql"], runId: string): Promise<FinishedStage[]> {
  return await sql<FinishedStage[]>`
    select stage_key, kind, result, score, evidence_md from verification_stage_results
    where verification_run_id = ${runId} and status = 'finished' order by position`;
}

/**
 * Finishes a run `error` (the service's machinery failed): its half-run stage too. Used when a
 * worker's last attempt fails and when a run's stage keeps stopping workers.
 */
export async function finishWithError(services: Services, runId: string, reason: string): Promise<void> {
  const { sql } = services;
  const now = services.clock();
  await sql.begin(async (tx) => {
    await tx`
      update verification_stage_results
      set status = 'finished', result = 'error', evidence_md = ${reason}, finished_at = ${now}
      where verification_run_id = ${runId} and status <> 'finished'`;
    const finished = await tx`
      update verification_runs
      set status = 'finished', result = 'error', score = null, evidence_md = ${`**error**\n\n${reason}`},
        started_at = coalesce(started_at, ${now}), finished_at = ${now}
      where id = ${runId} and status <> 'finished'`;
    if (finished.count > 0) await recordRunFinished(tx, runId, now);
  });
}
