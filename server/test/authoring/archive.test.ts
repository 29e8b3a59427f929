import { expect, it } from "vitest";
import { archiveCampaign } from "../../src/authoring/archive-campaign.ts";
import { archiveProblem } from "../../src/authoring/archive-problem.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  editJson,
  fixturePackage,
  newAuthor,
  publishFiles,
  uploadAndValidate,
} from "./support/authoring-harness.ts";

describeWithDatabase("archiving work", () => {
  const db = useTestDatabase();

  it("archive_problem archives the owner's problem for good, once", async () => {
    const at = new Date("2031-02-03T04:05:06.000Z");
    const services = testServices(db.sql, { clock: () => at });
    const author = await newAuthor(db.sql);
    const published = await publishFiles(services, author, fixturePackage("valid-script"));
    const problemId = published.problems[0]!.problem_id;
    const archived = await archiveProblem(services, author, { problem: "integer-root" });
    expect(archived).toEqual({
      problem: {
        problem_id: problemId,
        slug: "integer-root",
        status: "archived",
        archived_at: at.toISOString(),
      },
    });
    // 2. Again, by id, later: the same answer, nothing changes.
    const later = testServices(db.sql, { clock: () => new Date("2032-01-01T00:00:00Z") });
    expect(await archiveProblem(later, author, { problem: problemId })).toEqual(archived);
    const audit =
      await db.sql`select action, upload_id from work_audit where subject_id = ${problemId} and action = 'archive'`;
    expect(audit).toEqual([{ action: "archive", upload_id: null }]);
    // 3. A package naming the slug again is a conflict.
    const validation = await uploadAndValidate(services, author, fixturePackage("valid-script"));
    expect(validation.reconciliation?.problems[0]?.action).toBe("conflict");
  });

  it("archive_campaign archives the campaign and its open problems", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const files = editJson(fixturePackage("valid-campaign"), "campaign.json", (c) => {
      c.slug = "to-archive";
    });
    const campaignFiles = editJson(files, "problems/integer-root/problem.json", (p) => {
      p.slug = "to-archive-one";
    });
    const second = {
      ...campaignFiles,
      ...Object.fromEntries(
        Object.entries(campaignFiles)
          .filter(([path]) => path.startsWith("problems/integer-root/"))
          .map(([path, content]) => [path.replace("integer-root", "second-root"), content]),
      ),
    };
    const withTwo = editJson(second, "problems/second-root/problem.json", (p) => {
      p.slug = "to-archive-two";
    });
    const published = await publishFiles(services, author, withTwo);
    expect(published.problems.map((p) => p.slug)).toEqual(["to-archive-one", "to-archive-two"]);
    await archiveProblem(services, author, { problem: "to-archive-two" });

    const archived = await archiveCampaign(services, author, { campaign: "to-archive" });
    expect(archived).toEqual({
      campaign: {
        campaign_id: published.campaign_id,
        slug: "to-archive",
        status: "archived",
        archived_problems: 1,
        archived_at: expect.any(String),
      },
    });
    const problems =
      await db.sql`select slug, status from problems where campaign_id = ${published.campaign_id!} order by slug`;
    expect(problems).toEqual([
      { slug: "to-archive-one", status: "archived" },
      { slug: "to-archive-two", status: "archived" },
    ]);
    // 2. The archived campaign takes no more packages.
    const validation = await uploadAndValidate(services, author, withTwo);
    expect(validation.valid).toBe(false);
    expect(validation.reconciliation?.campaign).toMatchObject({
      action: "conflict",
      reason: "the campaign is archived",
    });
    expect(
      (await archiveCampaign(services, author, { campaign: published.campaign_id! })).campaign
        .archived_problems,
    ).toBe(0);
  });
});
