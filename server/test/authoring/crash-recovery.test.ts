import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { publishAuthoringUpload } from "../../src/authoring/publish-authoring-upload.ts";
import { validateAuthoringUpload } from "../../src/authoring/validate-authoring-upload.ts";
import { connectSql } from "../../src/core/db/connect-sql.ts";
import { describeWithDatabase, silentLog, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { fixturePackage, newAuthor, uploadBytes, zipFiles } from "./support/authoring-harness.ts";

describeWithDatabase("an upload survives a restart of the service", () => {
  const db = useTestDatabase();

  it("validates and publishes after the process that received it is gone", async () => {
    const blobDir = mkdtempSync(join(tmpdir(), "svc-blobs-"));
    const author = await newAuthor(db.sql);
    const bytes = await zipFiles(fixturePackage("valid-skill"));

    // 1. One process receives the archive, then dies (its pool ends; nothing else is kept).
    const first = connectSql(db.url, silentLog, { max: 2 });
    const uploadId = await uploadBytes(testServices(first, { blobDir }), author, bytes);
    await first.end({ timeout: 1 });

    // 2. Another validates, and dies too.
    const second = connectSql(db.url, silentLog, { max: 2 });
    const validation = await validateAuthoringUpload(testServices(second, { blobDir }), author, {
      upload_id: uploadId,
    });
    expect(validation.valid).toBe(true);
    await second.end({ timeout: 1 });

    // 3. A third publishes from the database and the blob directory alone.
    const third = connectSql(db.url, silentLog, { max: 2 });
    const services = testServices(third, { blobDir });
    try {
      const result = await publishAuthoringUpload(services, author, {
        upload_id: uploadId,
        plan_hash: validation.plan_hash!,
      });
      expect(result.problems[0]).toMatchObject({ slug: "small-sat", action: "create", revision_number: 1 });
      const [revision] =
        await third`select verifier_input_bindings from problem_revisions where id = ${result.problems[0]!.problem_revision_id}`;
      expect(await services.blobs.has(revision!.verifier_input_bindings[0].content_hash)).toBe(true);
    } finally {
      await third.end({ timeout: 1 });
    }
  });
});
