import { expect, it } from "vitest";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { fixturePackage, newAuthor, publishFiles } from "./support/authoring-harness.ts";

describeWithDatabase("published revisions are immutable", () => {
  const db = useTestDatabase();

  it("the database refuses to update or delete a published revision", async () => {
    const author = await newAuthor(db.sql);
    const result = await publishFiles(testServices(db.sql), author, fixturePackage("valid-script"));
    const revisionId = result.problems[0]!.problem_revision_id;
    await expect(
      db.sql`update problem_revisions set statement_md = 'changed' where id = ${revisionId}`,
    ).rejects.toThrow(/append-only/);
    await expect(
      db.sql`update problem_revisions set changelog_md = 'x' where id = ${revisionId}`,
    ).rejects.toThrow(/append-only/);
    await expect(db.sql`delete from problem_revisions where id = ${revisionId}`).rejects.toThrow(
      /never deleted/,
    );
    await expect(
      db.sql`update authoring_uploads set publish_result = '{}' where id = ${result.upload_id}`,
    ).rejects.toThrow(/write-once/);
    const [revision] = await db.sql`select statement_md from problem_revisions where id = ${revisionId}`;
    expect(revision!.statement_md).toContain("Integer square root");
  });
});
