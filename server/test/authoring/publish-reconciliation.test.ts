import { expect, it } from "vitest";
import { publishAuthoringUpload } from "../../src/authoring/publish-authoring-upload.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  editJson,
  type Files,
  fixturePackage,
  newAuthor,
  publishFiles,
  recordCounts,
  uploadAndValidate,
} from "./support/authoring-harness.ts";

/** The valid-script package under another slug, so each test owns its problem. */
function scriptPackage(slug: string): Files {
  return editJson(fixturePackage("valid-script"), "problem.json", (p) => {
    p.slug = slug;
  });
}

describeWithDatabase("publication follows the reconciliation", () => {
  const db = useTestDatabase();

  it("create: a new private problem with revision 1, its contract, implementation and audit", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const result = await publishFiles(services, author, scriptPackage("create-one"));
    expect(result.validation.reconciliation?.problems).toEqual([
      { slug: "create-one", action: "create", next_revision_number: 1 },
    ]);
    expect(result.problems).toEqual([
      {
        slug: "create-one",
        action: "create",
        problem_id: expect.stringMatching(/^prb_/),
        problem_revision_id: expect.stringMatching(/^prv_/),
        revision_number: 1,
        visibility: "private",
        listed_in_explore: false,
      },
    ]);
    expect(result.counts).toEqual({ create: 1, update: 0, revise: 0, noop: 0, conflict: 0 });
    expect(result.verifier_contract_ids).toHaveLength(1);
    expect(result.verifier_implementation_ids).toHaveLength(1);
    const [problem] = await db.sql`select * from problems where slug = 'create-one'`;
    expect(problem).toMatchObject({
      owner_user_id: author.user.id,
      status: "open",
      visibility: "private",
      current_revision_id: result.problems[0]!.problem_revision_id,
      current_revision_number: 1,
    });
    const [revision] = await db.sql`select * from problem_revisions where problem_id = ${problem!.id}`;
    expect(revision).toMatchObject({
      revision_number: 1,
      changelog_md: null,
      context_md: null,
      verifier_contract_id: result.verifier_contract_ids[0],
      verifier_input_bindings: [],
      skill_refs: [],
      sealing: null,
      upload_id: result.upload_id,
      created_by_user_id: author.user.id,
    });
    const [implementation] =
      await db.sql`select * from verifier_implementations where id = ${result.verifier_implementation_ids[0]!}`;
    expect(implementation).toMatchObject({ stage_key: "check_answer", version_number: 1 });
    expect(implementation!.conformance.status).toBe("pending");
    expect(await services.blobs.has(implementation!.program.content_hash)).toBe(true);
    const audit =
      await db.sql`select action, subject_kind from work_audit where upload_id = ${result.upload_id} order by id`;
    expect(audit.map((a) => `${a.action} ${a.subject_kind}`)).toEqual([
      "create verifier_contract",
      "create verifier_implementation",
      "create problem",
    ]);
  });

  it("noop: the same package again creates nothing and returns the current ids", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const first = await publishFiles(services, author, scriptPackage("noop-one"));
    const before = await recordCounts(db.sql);
    const again = await publishFiles(services, author, scriptPackage("noop-one"));
    expect(again.problems[0]).toMatchObject({
      action: "noop",
      problem_id: first.problems[0]!.problem_id,
      problem_revision_id: first.problems[0]!.problem_revision_id,
      revision_number: 1,
    });
    // The contract and implementation are reused, not copied.
    expect(again.verifier_contract_ids).toEqual(first.verifier_contract_ids);
    expect(again.verifier_implementation_ids).toEqual(first.verifier_implementation_ids);
    expect(await recordCounts(db.sql)).toEqual(before);
  });

  it("update: a changed title and summary change the problem, not its revision", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const first = await publishFiles(services, author, scriptPackage("update-one"));
    const renamed = editJson(scriptPackage("update-one"), "problem.json", (p) => {
      p.title = "A renamed square root";
      p.priority_weight = 0.9;
    });
    const again = await publishFiles(services, author, renamed);
    expect(again.problems[0]).toMatchObject({ action: "update", revision_number: 1 });
    const [problem] = await db.sql`
      select title, priority_weight, current_revision_number,
        search_document @@ plainto_tsquery('english', 'renamed') as found_by_title,
        search_document @@ plainto_tsquery('english', 'positive') as found_by_statement
      from problems where id = ${first.problems[0]!.problem_id}`;
    expect(problem).toEqual({
      title: "A renamed square root",
      priority_weight: 0.9,
      current_revision_number: 1,
      found_by_title: true,
      found_by_statement: true,
    });
  });

  it("revise: a changed statement makes revision 2 current, with the revision note as changelog", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const first = await publishFiles(services, author, scriptPackage("revise-one"));
    const files = editJson(scriptPackage("revise-one"), "problem.json", (p) => {
      p.revision_note = "Say which integer.";
    });
    files["statement.md"] =
      "# Integer square root\n\nFind the positive integer whose square is 1522756, in decimal.\n";
    const again = await publishFiles(services, author, files);
    expect(again.validation.reconciliation?.problems[0]).toMatchObject({
      action: "revise",
      next_revision_number: 2,
      current_revision_id: first.problems[0]!.problem_revision_id,
    });
    expect(again.problems[0]).toMatchObject({ action: "revise", revision_number: 2 });
    const revisions = await db.sql`
      select id, revision_number, changelog_md from problem_revisions
      where problem_id = ${first.problems[0]!.problem_id} order by revision_number`;
    expect(revisions.map((r) => [r.revision_number, r.changelog_md])).toEqual([
      [1, null],
      [2, "Say which integer."],
    ]);
    const [problem] =
      await db.sql`select current_revision_id, current_revision_number from problems where id = ${first.problems[0]!.problem_id}`;
    expect(problem).toEqual({ current_revision_id: revisions[1]!.id, current_revision_number: 2 });
    // 2. The revision note alone changes nothing.
    const noteOnly = editJson(files, "problem.json", (p) => {
      p.revision_note = "Another note.";
    });
    const third = await publishFiles(services, author, noteOnly);
    expect(third.problems[0]).toMatchObject({ action: "noop", revision_number: 2 });
  });

  it("conflict: another user's slug, an archived problem, a changed structure; nothing is published", async () => {
    const services = testServices(db.sql);
    const owner = await newAuthor(db.sql);
    const stranger = await newAuthor(db.sql);
    await publishFiles(services, owner, scriptPackage("conflict-owned"));
    const archived = await publishFiles(services, owner, scriptPackage("conflict-archived"));
    await db.sql`update problems set status = 'archived', archived_at = now() where id = ${archived.problems[0]!.problem_id}`;
    await publishFiles(services, owner, scriptPackage("conflict-structure"));
    const before = await recordCounts(db.sql);

    const cases: Array<[Files, typeof owner, RegExp]> = [
      [scriptPackage("conflict-owned"), stranger, /another user owns/],
      [scriptPackage("conflict-archived"), owner, /archived/],
      [
        editJson(scriptPackage("conflict-structure"), "problem.json", (p) => {
          p.structure = "DISCOVERY";
        }),
        owner,
        /structure is immutable/,
      ],
    ];
    for (const [files, who, reason] of cases) {
      const validation = await uploadAndValidate(services, who, files);
      expect(validation.valid).toBe(false);
      expect(validation.state).toBe("invalid");
      expect(validation.reconciliation?.problems[0]).toMatchObject({
        action: "conflict",
        reason: expect.stringMatching(reason),
      });
      expect(validation.reconciliation?.counts.conflict).toBe(1);
      await expect(
        publishAuthoringUpload(services, who, {
          upload_id: validation.upload_id,
          plan_hash: validation.plan_hash!,
        }),
      ).rejects.toMatchObject({
        code: "upload_invalid",
        details: { conflicts: [expect.objectContaining({ action: "conflict" })] },
      });
    }
    expect(await recordCounts(db.sql)).toEqual(before);
  });

  it("an administrator revises another user's problem as themselves; the owner and visibility stay", async () => {
    const services = testServices(db.sql);
    const owner = await newAuthor(db.sql);
    const admin = await newAuthor(db.sql, { admin: true });
    const first = await publishFiles(services, owner, scriptPackage("admin-revises"));
    await db.sql`update problems set visibility = 'unlisted' where id = ${first.problems[0]!.problem_id}`;
    const files = scriptPackage("admin-revises");
    files["statement.md"] =
      "# Integer square root\n\nFind the positive integer whose square is 1522756. Show it.\n";
    const again = await publishFiles(services, admin, files);
    expect(again.problems[0]).toMatchObject({ action: "revise", revision_number: 2, visibility: "unlisted" });
    const [problem] =
      await db.sql`select owner_user_id, visibility from problems where id = ${first.problems[0]!.problem_id}`;
    expect(problem).toEqual({ owner_user_id: owner.user.id, visibility: "unlisted" });
    const [revision] =
      await db.sql`select created_by_user_id from problem_revisions where id = ${again.problems[0]!.problem_revision_id}`;
    expect(revision!.created_by_user_id).toBe(admin.user.id);
  });
});
