import { expect, it } from "vitest";
import { publishAuthoringUpload } from "../../src/authoring/publish-authoring-upload.ts";
import { validateAuthoringUpload } from "../../src/authoring/validate-authoring-upload.ts";
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

function campaignPackage(slug: string): Files {
  return editJson(fixturePackage("valid-campaign"), "campaign.json", (c) => {
    c.slug = slug;
  });
}

function renamedProblem(files: Files, slug: string): Files {
  return editJson(files, "problems/integer-root/problem.json", (p) => {
    p.slug = slug;
  });
}

describeWithDatabase("publishing an upload happens once", () => {
  const db = useTestDatabase();

  it("republishing returns the recorded result unchanged and creates nothing", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const first = await publishFiles(
      services,
      author,
      renamedProblem(campaignPackage("once-campaign"), "once-problem"),
    );
    const before = await recordCounts(db.sql);
    const again = await publishAuthoringUpload(services, author, {
      upload_id: first.upload_id,
      plan_hash: first.validation.plan_hash!,
    });
    const { upload_id: _u, validation: _v, ...recorded } = first;
    expect(again).toEqual(recorded);
    expect(await recordCounts(db.sql)).toEqual(before);
    // A published upload is never revalidated.
    await expect(
      validateAuthoringUpload(services, author, { upload_id: first.upload_id }),
    ).rejects.toMatchObject({
      code: "conflict",
    });
  });

  it("concurrent publications of one upload create exactly one set of records", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const validation = await uploadAndValidate(
      services,
      author,
      renamedProblem(campaignPackage("race-campaign"), "race-problem"),
    );
    const before = await recordCounts(db.sql);
    const input = { upload_id: validation.upload_id, plan_hash: validation.plan_hash! };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => publishAuthoringUpload(services, author, input)),
    );
    for (const result of results) expect(result).toEqual(results[0]);
    const after = await recordCounts(db.sql);
    expect(after.campaigns - before.campaigns).toBe(1);
    expect(after.problems - before.problems).toBe(1);
    expect(after.problem_revisions - before.problem_revisions).toBe(1);
    expect(after.verifier_contracts - before.verifier_contracts).toBe(1);
    expect(after.verifier_implementations - before.verifier_implementations).toBe(1);
    expect(results[0]!.campaign).toMatchObject({
      slug: "race-campaign",
      action: "create",
      visibility: "private",
    });
    // A campaign's new problem is 'listed' under a private campaign: effectively private.
    expect(results[0]!.problems[0]).toMatchObject({ visibility: "private", listed_in_explore: false });
    const [problem] = await db.sql`select visibility from problems where slug = 'race-problem'`;
    expect(problem!.visibility).toBe("listed");
  });

  it("commits nothing while a file the records name is not stored: the bytes are stored during the transaction, which waits for them", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const validation = await uploadAndValidate(
      services,
      author,
      renamedProblem(campaignPackage("store-fails"), "store-fails-p"),
    );
    const before = await recordCounts(db.sql);
    let refused = 0;
    const failing = {
      ...services,
      blobs: {
        ...services.blobs,
        put: async () => {
          refused++;
          throw new Error("disk full");
        },
      },
    };
    const input = { upload_id: validation.upload_id, plan_hash: validation.plan_hash! };
    await expect(publishAuthoringUpload(failing, author, input)).rejects.toThrow("disk full");
    expect(refused).toBeGreaterThan(0);
    expect(await recordCounts(db.sql)).toEqual(before);
    const [upload] = await db.sql`select state from authoring_uploads where id = ${validation.upload_id}`;
    expect(upload!.state).toBe("validated");
    // Once the store takes the bytes, the same upload publishes.
    const result = await publishAuthoringUpload(services, author, input);
    expect(result.problems[0]).toMatchObject({ slug: "store-fails-p", action: "create" });
  });

  it("refuses a plan_hash other than the validated one with stale_plan_hash", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const validation = await uploadAndValidate(
      services,
      author,
      renamedProblem(campaignPackage("stale-plan"), "stale-plan-p"),
    );
    const before = await recordCounts(db.sql);
    const other = `sha256:${"0".repeat(64)}`;
    await expect(
      publishAuthoringUpload(services, author, { upload_id: validation.upload_id, plan_hash: other }),
    ).rejects.toMatchObject({
      code: "stale_plan_hash",
      details: { expected_plan_hash: validation.plan_hash },
    });
    expect(await recordCounts(db.sql)).toEqual(before);
  });

  it("refuses with stale_server_state when another upload publishes between validate and publish", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const base = renamedProblem(campaignPackage("stale-state"), "stale-state-p");
    await publishFiles(services, author, base);
    // 1. Two uploads revise the same problem; both validate against revision 1.
    const revisedA = {
      ...base,
      "problems/integer-root/statement.md": "# Root\n\nFind the root of 1522756.\n",
    };
    const revisedB = {
      ...base,
      "problems/integer-root/statement.md": "# Root\n\nFind the square root of 1522756.\n",
    };
    const a = await uploadAndValidate(services, author, revisedA);
    const b = await uploadAndValidate(services, author, revisedB);
    expect(a.reconciliation?.problems[0]?.action).toBe("revise");
    expect(b.reconciliation?.problems[0]?.action).toBe("revise");
    // 2. A publishes; B saw revision 1, which is no longer current.
    await publishAuthoringUpload(services, author, { upload_id: a.upload_id, plan_hash: a.plan_hash! });
    const before = await recordCounts(db.sql);
    await expect(
      publishAuthoringUpload(services, author, { upload_id: b.upload_id, plan_hash: b.plan_hash! }),
    ).rejects.toMatchObject({
      code: "stale_server_state",
      message: expect.stringContaining("current_revision_id"),
    });
    expect(await recordCounts(db.sql)).toEqual(before);
    // 3. Revalidating B makes it revision 3.
    const again = await validateAuthoringUpload(services, author, { upload_id: b.upload_id });
    expect(again.reconciliation?.problems[0]).toMatchObject({ action: "revise", next_revision_number: 3 });
    const published = await publishAuthoringUpload(services, author, {
      upload_id: b.upload_id,
      plan_hash: again.plan_hash!,
    });
    expect(published.problems[0]?.revision_number).toBe(3);
  });

  it("refuses with stale_server_state when a problem to create was created meanwhile", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const files = renamedProblem(campaignPackage("stale-create"), "stale-create-p");
    const a = await uploadAndValidate(services, author, files);
    const b = await uploadAndValidate(services, author, files);
    await publishAuthoringUpload(services, author, { upload_id: a.upload_id, plan_hash: a.plan_hash! });
    await expect(
      publishAuthoringUpload(services, author, { upload_id: b.upload_id, plan_hash: b.plan_hash! }),
    ).rejects.toMatchObject({
      code: "stale_server_state",
      message: expect.stringContaining("created by someone else"),
    });
  });

  it("concurrent creations of one slug from two uploads publish one and call the other stale", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const files = renamedProblem(campaignPackage("twin-campaign"), "twin-problem");
    const a = await uploadAndValidate(services, author, files);
    const b = await uploadAndValidate(services, author, files);
    const outcomes = await Promise.allSettled([
      publishAuthoringUpload(services, author, { upload_id: a.upload_id, plan_hash: a.plan_hash! }),
      publishAuthoringUpload(services, author, { upload_id: b.upload_id, plan_hash: b.plan_hash! }),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const rejected = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: "stale_server_state" });
    const [{ count }] =
      (await db.sql`select count(*)::int as count from problems where slug = 'twin-problem'`) as unknown as [
        { count: number },
      ];
    expect(count).toBe(1);
  });
});
