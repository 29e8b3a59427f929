import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { lintPackage, memoryTree } from "@svc/app";
import type { Plan, PlanProblem } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LiveProblem, type LiveState, reconcile } from "../../src/authoring/reconcile.ts";
import { taskComponents, taskFingerprint } from "../../src/authoring/task-fingerprint.ts";

const fixtures = new URL("../../../app/test/fixtures/lint/", import.meta.url).pathname;
const NOW = new Date("2026-11-22T00:00:00Z");
const owner = { user_id: "usr_owner000000", is_admin: false };
const stranger = { user_id: "usr_stranger0000", is_admin: false };
const admin = { user_id: "usr_admin0000000", is_admin: true };

function readPackage(name: string): Record<string, string> {
  const dir = join(fixtures, name);
  const files: Record<string, string> = {};
  const walk = (prefix: string) => {
    for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else files[path] = readFileSync(join(dir, path), "utf8");
    }
  };
  walk("");
  return files;
}

async function planOf(files: Record<string, string>): Promise<Plan> {
  const result = await lintPackage(memoryTree(files), { now: NOW });
  if (!result.plan) throw new Error(JSON.stringify(result.errors));
  return result.plan;
}

/** Live state as it would be right after publishing `plan` as `ownerId`. */
function publishedAs(plan: Plan, ownerId: string, overrides: Partial<LiveProblem> = {}): LiveState {
  const problems = new Map<string, LiveProblem>();
  for (const [i, p] of plan.problems.entries()) {
    problems.set(p.slug, {
      problem_id: `prb_${String(i).padStart(10, "0")}`,
      slug: p.slug,
      owner_user_id: ownerId,
      campaign_slug: p.campaign_slug,
      status: "open",
      structure: p.structure,
      title: p.title,
      summary: p.summary,
      priority_weight: p.priority_weight,
      current_revision_id: `prv_${String(i).padStart(10, "0")}`,
      current_revision_number: 1,
      task: taskComponents(p),
      ...overrides,
    });
  }
  return { campaign: null, problems, campaignFingerprints: new Map() };
}

const empty: LiveState = { campaign: null, problems: new Map(), campaignFingerprints: new Map() };

describe("reconcile", () => {
  it("creates revision 1 of a problem no one has published", async () => {
    const plan = await planOf(readPackage("valid-script"));
    const result = reconcile(plan, empty, owner);
    expect(result.problems).toEqual([{ slug: "integer-root", action: "create", next_revision_number: 1 }]);
    expect(result.counts).toEqual({ create: 1, update: 0, revise: 0, noop: 0, conflict: 0 });
  });

  it("is a noop when nothing changed, with the current ids", async () => {
    const plan = await planOf(readPackage("valid-script"));
    const [problem] = reconcile(plan, publishedAs(plan, owner.user_id), owner).problems;
    expect(problem).toMatchObject({
      action: "noop",
      problem_id: "prb_0000000000",
      current_revision_id: "prv_0000000000",
    });
  });

  it("updates without a revision when only title, summary or priority weight change", async () => {
    const files = readPackage("valid-script");
    const live = publishedAs(await planOf(files), owner.user_id);
    const problem = JSON.parse(files["problem.json"]!);
    problem.title = "A better title";
    problem.priority_weight = 0.9;
    const [result] = reconcile(
      await planOf({ ...files, "problem.json": JSON.stringify(problem) }),
      live,
      owner,
    ).problems;
    expect(result).toMatchObject({ action: "update", reason: "title, priority_weight changed" });
    expect(result!.next_revision_number).toBeUndefined();
  });

  it("revises when the statement changes, naming what changed and the next revision number", async () => {
    const files = readPackage("valid-script");
    const live = publishedAs(await planOf(files), owner.user_id);
    const edited = { ...files, "statement.md": `${files["statement.md"]}\nA clarification.\n` };
    const [result] = reconcile(await planOf(edited), live, owner).problems;
    expect(result).toMatchObject({ action: "revise", next_revision_number: 2, reason: "statement changed" });
  });

  it("revises when a reference binding changes, but not when only the checker or revision note changes", async () => {
    // valid-sealed's fixtures use their own instance, so the bound one can change freely.
    const sat = readPackage("valid-sealed");
    const live = publishedAs(await planOf(sat), owner.user_id);
    const rebound = { ...sat, "reference/instance.cnf": "p cnf 3 2\n1 2 0\n-1 3 0\n" };
    expect(reconcile(await planOf(rebound), live, owner).problems[0]).toMatchObject({
      action: "revise",
      reason: "references changed",
    });

    const script = readPackage("valid-script");
    const liveScript = publishedAs(await planOf(script), owner.user_id);
    const problem = JSON.parse(script["problem.json"]!);
    problem.revision_note = "Only a note.";
    const newChecker = {
      ...script,
      "checker.py": `${script["checker.py"]}# faster\n`,
      "problem.json": JSON.stringify(problem),
    };
    expect(reconcile(await planOf(newChecker), liveScript, owner).problems[0]!.action).toBe("noop");
  });

  it("is a conflict for another owner's slug unless the caller is a live administrator", async () => {
    const plan = await planOf(readPackage("valid-script"));
    const live = publishedAs(plan, owner.user_id);
    expect(reconcile(plan, live, stranger).problems[0]).toMatchObject({ action: "conflict" });
    expect(reconcile(plan, live, stranger).problems[0]!.reason).toContain("another user owns");
    expect(reconcile(plan, live, admin).problems[0]!.action).toBe("noop");
  });

  it("is a conflict for an archived problem and for a changed structure", async () => {
    const files = readPackage("valid-script");
    const plan = await planOf(files);
    expect(
      reconcile(plan, publishedAs(plan, owner.user_id, { status: "archived" }), owner).problems[0],
    ).toMatchObject({
      action: "conflict",
    });
    const live = publishedAs(plan, owner.user_id, { structure: "DISCOVERY" });
    const result = reconcile(plan, live, owner);
    expect(result.problems[0]!.action).toBe("conflict");
    expect(result.problems[0]!.reason).toContain("structure is immutable");
    expect(result.counts.conflict).toBe(1);
  });

  it("warns of a possible duplicate when a new problem has the task of another live problem of the campaign", async () => {
    const plan = await planOf(readPackage("valid-campaign"));
    const fingerprint = taskFingerprint(taskComponents(plan.problems[0]!));
    const live: LiveState = { ...empty, campaignFingerprints: new Map([["older-twin", fingerprint]]) };
    expect(reconcile(plan, live, owner).warnings).toEqual([
      { code: "possible_duplicate", slug: "integer-root", of: "older-twin" },
    ]);
  });

  it("creates, reuses, updates or conflicts on the campaign", async () => {
    const plan = await planOf(readPackage("valid-campaign"));
    const campaign = {
      campaign_id: "cmp_0000000000",
      slug: plan.campaign!.slug,
      owner_user_id: owner.user_id,
      title: plan.campaign!.title,
      summary: plan.campaign!.summary,
      description_md: plan.campaign!.description_md,
      status: "draft",
    };
    expect(reconcile(plan, empty, owner).campaign).toEqual({ slug: campaign.slug, action: "create" });
    expect(reconcile(plan, { ...empty, campaign }, owner).campaign!.action).toBe("reuse");
    expect(
      reconcile(plan, { ...empty, campaign: { ...campaign, title: "Old" } }, owner).campaign,
    ).toMatchObject({
      action: "update",
      reason: "title changed",
    });
    expect(reconcile(plan, { ...empty, campaign }, stranger).campaign!.action).toBe("conflict");
  });

  it("gives exactly one action per planned problem and counts that add up, for any live state", async () => {
    const plan = await planOf(readPackage("valid-script"));
    const problem = plan.problems[0] as PlanProblem;
    await fc.assert(
      fc.property(
        fc.boolean(),
        fc.constantFrom(owner, stranger, admin),
        fc.constantFrom("open" as const, "archived" as const),
        fc.constantFrom("SOLVE", "BENCHMARK", "DISCOVERY"),
        fc.boolean(),
        fc.boolean(),
        (exists, caller, status, structure, sameTask, sameTitle) => {
          const live = exists
            ? publishedAs(plan, owner.user_id, {
                status,
                structure,
                title: sameTitle ? problem.title : "Other",
                task: sameTask
                  ? taskComponents(problem)
                  : { ...taskComponents(problem), statement: "sha256:00" },
              })
            : empty;
          const result = reconcile(plan, live, caller);
          expect(result.problems).toHaveLength(1);
          const total = Object.values(result.counts).reduce((a, b) => a + b, 0);
          expect(total).toBe(1);
          const action = result.problems[0]!.action;
          if (!exists) expect(action).toBe("create");
          if (exists && caller === stranger) expect(action).toBe("conflict");
          if (action === "revise") expect(result.problems[0]!.next_revision_number).toBe(2);
        },
      ),
    );
  });
});
