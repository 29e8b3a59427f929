import type { PlanProblem, ProblemReconciliation, PublishedProblem, Visibility } from "@svc/schemas";
import { IdPrefix } from "@svc/schemas";
import { recordProblemRevised } from "../agents/record-problem-revised.ts";
import { scheduleInputsRelease } from "../agents/record-scheduled-releases.ts";
import { randomId } from "../core/ids/random-id.ts";
import { sealedSlots } from "../problems/sealed-slots.ts";
import { evaluationIdOf } from "../sealing/evaluation-id.ts";
import type { CampaignPlacement } from "./publish-campaign.ts";
import type { PublishContext } from "./publish-context.ts";
import type { LiveProblemRow } from "./read-live-state.ts";
import { type RevisionContent, revisionOf } from "./revision-of.ts";
import { TASK_COMPONENT_NAMES, taskComponents, taskFingerprint } from "./task-fingerprint.ts";

const RANK: Readonly<Record<Visibility, number>> = { private: 0, unlisted: 1, listed: 2 };

/**
 * Step 6: each Problem as reconciled. create: owned by the publisher, revision 1, private when
 * standalone and 'listed' inside a Campaign (so it follows its Campaign, see migration 002);
 * revise: the next revision, current from now on, changelog_md from revision_note; update: title,
 * summary and priority weight only; noop: nothing. Visibility and owner of existing work never
 * change. Search text, task components and fingerprint follow the current revision.
 */
export async function publishProblems(
  ctx: PublishContext,
  entries: readonly ProblemReconciliation[],
  live: ReadonlyMap<string, LiveProblemRow>,
  campaigns: ReadonlyMap<string, CampaignPlacement>,
  ids: { skills: ReadonlyMap<string, string>; contracts: ReadonlyMap<string, string> },
): Promise<PublishedProblem[]> {
  const bySlug = new Map(entries.map((e) => [e.slug, e]));
  const campaignOf = (problem: PlanProblem) =>
    problem.campaign_slug ? (campaigns.get(problem.campaign_slug) ?? null) : null;
  // Every created problem in one statement and their first revisions in another: a campaign of
  // 300 new problems is two round trips, not 600.
  const created = await createProblems(
    ctx,
    ctx.plan.problems
      .filter((problem) => bySlug.get(problem.slug)?.action === "create")
      .map((problem) => ({
        problem,
        campaign: campaignOf(problem),
        revision: revisionOf(problem, ids.skills, ids.contracts),
      })),
  );
  const published: PublishedProblem[] = [];
  for (const problem of ctx.plan.problems) {
    const entry = bySlug.get(problem.slug);
    if (!entry) throw new Error(`the reconciliation lacks problem ${problem.slug}`);
    const campaign = campaignOf(problem);
    const existing = live.get(problem.slug);
    let placed: { problem_id: string; revision_id: string; revision_number: number; visibility: Visibility };
    switch (entry.action) {
      case "create":
        placed = created.get(problem.slug)!;
        break;
      case "revise":
        placed = await reviseProblem(
          ctx,
          problem,
          existing!,
          revisionOf(problem, ids.skills, ids.contracts),
          entry.reason ?? "the task changed",
        );
        break;
      case "update":
        await updateProblem(ctx, problem, existing!, entry.reason ?? null);
        placed = current(existing!);
        break;
      case "noop":
        placed = current(existing!);
        break;
      case "conflict":
        throw new Error(`problem ${problem.slug} is in conflict; validation should have refused it`);
      default: {
        const never: never = entry.action;
        throw new Error(`Unhandled problem action: ${never}`);
      }
    }
    const visibility =
      campaign && RANK[campaign.visibility] < RANK[placed.visibility]
        ? campaign.visibility
        : placed.visibility;
    const open = existing?.status !== "archived" && (campaign === null || campaign.status === "active");
    published.push({
      slug: problem.slug,
      action: entry.action,
      problem_id: placed.problem_id,
      problem_revision_id: placed.revision_id,
      revision_number: placed.revision_number,
      visibility,
      listed_in_explore: open && visibility === "listed",
    });
  }
  return published;
}

function current(row: LiveProblemRow) {
  return {
    problem_id: row.problem_id,
    revision_id: row.current_revision_id,
    revision_number: row.current_revision_number,
    visibility: row.visibility,
  };
}

interface NewProblem {
  problem: PlanProblem;
  campaign: CampaignPlacement | null;
  revision: RevisionContent;
}

/**
 * Creates problems owned by the publisher, each with revision 1: private when standalone, 'listed'
 * inside a Campaign. Returns where each was placed, by slug.
 */
async function createProblems(ctx: PublishContext, creates: readonly NewProblem[]) {
  const placed = new Map<
    string,
    { problem_id: string; revision_id: string; revision_number: number; visibility: Visibility }
  >();
  if (creates.length === 0) return placed;
  const { tx } = ctx;
  const rows = creates.map(({ problem, campaign }) => {
    const components = taskComponents(problem);
    const visibility: Visibility = campaign ? "listed" : "private";
    const row = {
      id: randomId(IdPrefix.problem),
      slug: problem.slug,
      campaign_id: campaign?.campaign_id ?? null,
      structure: problem.structure,
      title: problem.title,
      summary: problem.summary,
      priority_weight: problem.priority_weight,
      visibility,
      current_revision_id: randomId(IdPrefix.problemRevision),
      task_components: components,
      task_fingerprint: taskFingerprint(components),
      statement_md: problem.statement_md,
    };
    placed.set(problem.slug, {
      problem_id: row.id,
      revision_id: row.current_revision_id,
      revision_number: 1,
      visibility,
    });
    return row;
  });
  // The current-revision key is deferred: each problem names its first revision before it exists.
  await tx`
    insert into problems (id, slug, owner_user_id, campaign_id, structure, title, summary, priority_weight, visibility,
      current_revision_id, current_revision_number, task_components, task_fingerprint, search_document)
    select p.id, p.slug, ${ctx.userId}, p.campaign_id, p.structure, p.title, p.summary, p.priority_weight, p.visibility,
      p.current_revision_id, 1, p.task_components, p.task_fingerprint,
      svc_problem_search_document(p.title, p.summary, p.statement_md)
    from jsonb_to_recordset(${tx.json(rows as never)}) as p(id text, slug text, campaign_id text,
      structure text, title text, summary text, priority_weight float8, visibility text, current_revision_id text,
      task_components jsonb, task_fingerprint text, statement_md text)`;
  await insertRevisions(
    ctx,
    creates.map(({ revision }, i) => ({
      problemId: rows[i]!.id,
      revisionId: rows[i]!.current_revision_id,
      number: 1,
      revision,
      changelog: null,
    })),
  );
  for (const row of rows) {
    ctx.audit.push({
      action: "create",
      subject_kind: "problem",
      subject_id: row.id,
      detail: { slug: row.slug, problem_revision_id: row.current_revision_id, revision_number: 1 },
    });
  }
  return placed;
}

async function reviseProblem(
  ctx: PublishContext,
  problem: PlanProblem,
  row: LiveProblemRow,
  revision: RevisionContent,
  reason: string,
) {
  const { tx } = ctx;
  const revisionId = randomId(IdPrefix.problemRevision);
  const number = row.current_revision_number + 1;
  const components = taskComponents(problem);
  await insertRevisions(ctx, [
    { problemId: row.problem_id, revisionId, number, revision, changelog: problem.revision_note },
  ]);
  await tx`
    update problems set title = ${problem.title}, summary = ${problem.summary}, priority_weight = ${problem.priority_weight},
      current_revision_id = ${revisionId}, current_revision_number = ${number},
      task_components = ${tx.json(components as never)}, task_fingerprint = ${taskFingerprint(components)},
      search_document = svc_problem_search_document(${problem.title}, ${problem.summary}, ${problem.statement_md}),
      updated_at = ${ctx.now}
    where id = ${row.problem_id}`;
  ctx.audit.push({
    action: "revise",
    subject_kind: "problem",
    subject_id: row.problem_id,
    detail: { slug: problem.slug, problem_revision_id: revisionId, revision_number: number },
  });
  // What counts as correct changed for Attempts under way on older revisions: tell their owners.
  await recordProblemRevised(tx, {
    problemId: row.problem_id,
    fromRevisionId: row.current_revision_id,
    toRevisionId: revisionId,
    reason,
    changed: TASK_COMPONENT_NAMES.filter((name) => components[name] !== row.task[name]),
    at: ctx.now,
  });
  return {
    problem_id: row.problem_id,
    revision_id: revisionId,
    revision_number: number,
    visibility: row.visibility,
  };
}

async function updateProblem(
  ctx: PublishContext,
  problem: PlanProblem,
  row: LiveProblemRow,
  reason: string | null,
) {
  const { tx } = ctx;
  await tx`
    update problems set title = ${problem.title}, summary = ${problem.summary}, priority_weight = ${problem.priority_weight},
      search_document = svc_problem_search_document(${problem.title}, ${problem.summary},
        (select statement_md from problem_revisions where id = problems.current_revision_id)),
      updated_at = ${ctx.now}
    where id = ${row.problem_id}`;
  ctx.audit.push({
    action: "update",
    subject_kind: "problem",
    subject_id: row.problem_id,
    detail: { slug: problem.slug, reason },
  });
}

interface NewRevision {
  problemId: string;
  revisionId: string;
  number: number;
  revision: RevisionContent;
  changelog: string | null;
}

/** Inserts revisions in one statement (a sealed one first gets its evaluation, sealingWithEvaluation). */
async function insertRevisions(ctx: PublishContext, revisions: readonly NewRevision[]): Promise<void> {
  const { tx } = ctx;
  const rows = [];
  for (const { problemId, revisionId, number, revision, changelog } of revisions) {
    const sealing = revision.sealing && (await sealingWithEvaluation(ctx, problemId, revision));
    rows.push({
      id: revisionId,
      problem_id: problemId,
      revision_number: number,
      statement_md: revision.statement_md,
      benchmark: revision.benchmark ?? null,
      verifier_contract_id: revision.verifier_contract_id,
      verifier_input_bindings: revision.verifier_input_bindings,
      sealing: sealing || null,
      skill_refs: revision.skill_refs,
      changelog_md: changelog,
    });
  }
  await tx`
    insert into problem_revisions (id, problem_id, revision_number, statement_md, context_md, benchmark,
      verifier_contract_id, verifier_input_bindings, sealing, skill_refs, changelog_md, created_by_user_id, created_at, upload_id)
    select r.id, r.problem_id, r.revision_number, r.statement_md, null, r.benchmark, r.verifier_contract_id,
      r.verifier_input_bindings, r.sealing, r.skill_refs, r.changelog_md, ${ctx.userId}, ${ctx.now}, ${ctx.uploadId}
    from jsonb_to_recordset(${tx.json(rows as never)}) as r(id text, problem_id text,
      revision_number int, statement_md text, benchmark jsonb, verifier_contract_id text,
      verifier_input_bindings jsonb, sealing jsonb, skill_refs jsonb, changelog_md text)`;
  // Attempts on them are told when their sealed inputs become public by date, at that instant.
  for (const row of rows) {
    if (row.sealing) await scheduleInputsRelease(tx, row.id, String(row.sealing.sealed_until));
  }
}

/**
 * The sealing to store: the authored policy with its `evaluation_id`, derived from the sealed
 * bindings and the Problem's owner (spec 2.3), and the evaluation's release-state row created
 * when this is its first revision. Revisions sharing the id share that row.
 */
async function sealingWithEvaluation(
  ctx: PublishContext,
  problemId: string,
  revision: RevisionContent,
): Promise<Record<string, unknown>> {
  const { tx } = ctx;
  const [owner] = await tx<
    { owner_user_id: string }[]
  >`select owner_user_id from problems where id = ${problemId}`;
  const sealed = await sealedSlots(tx, revision.verifier_contract_id);
  const evaluationId = evaluationIdOf(
    revision.verifier_input_bindings.filter((b) => sealed.has(b.key) && b.url === undefined),
    [owner!.owner_user_id],
  );
  await tx`
    insert into sealed_evaluations (evaluation_id, created_at) values (${evaluationId}, ${ctx.now})
    on conflict (evaluation_id) do nothing`;
  return { ...revision.sealing, evaluation_id: evaluationId };
}
