import { sha256 } from "@svc/app";
import { expect, it } from "vitest";
import { archiveCampaign } from "../../src/authoring/archive-campaign.ts";
import { archiveProblem } from "../../src/authoring/archive-problem.ts";
import { publishAuthoringUpload } from "../../src/authoring/publish-authoring-upload.ts";
import { requestAuthoringUpload } from "../../src/authoring/request-authoring-upload.ts";
import { validateAuthoringUpload } from "../../src/authoring/validate-authoring-upload.ts";
import { setAdministrator } from "../../src/users/set-administrator.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  editJson,
  fixturePackage,
  newAuthor,
  newUser,
  publishFiles,
  recordCounts,
  uploadAndValidate,
} from "./support/authoring-harness.ts";

function scriptPackage(slug: string) {
  return editJson(fixturePackage("valid-script"), "problem.json", (p) => {
    p.slug = slug;
  });
}

describeWithDatabase("who may upload, validate and publish", () => {
  const db = useTestDatabase();

  it("a contributor without the author capability uploads and validates but may not publish", async () => {
    const services = testServices(db.sql);
    const contributor = await newUser(db.sql);
    const validation = await uploadAndValidate(services, contributor, scriptPackage("contributor-only"));
    expect(validation.valid).toBe(true);
    const before = await recordCounts(db.sql);
    await expect(
      publishAuthoringUpload(services, contributor, {
        upload_id: validation.upload_id,
        plan_hash: validation.plan_hash!,
      }),
    ).rejects.toMatchObject({ code: "forbidden", details: { capability: "author" } });
    expect(await recordCounts(db.sql)).toEqual(before);
  });

  it("a read-only token is refused every authoring write, whatever its user holds", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const validation = await uploadAndValidate(services, author, scriptPackage("read-only"));
    const readOnly = { ...author, scopes: ["read" as const] };
    await expect(
      requestAuthoringUpload(services, readOnly, { size_bytes: 10, content_hash: sha256("x") }),
    ).rejects.toMatchObject({ code: "forbidden", details: { scope: "contribute" } });
    await expect(
      validateAuthoringUpload(services, readOnly, { upload_id: validation.upload_id }),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(
      publishAuthoringUpload(services, readOnly, {
        upload_id: validation.upload_id,
        plan_hash: validation.plan_hash!,
      }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(archiveProblem(services, readOnly, { problem: "read-only" })).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it("another user's upload id is not_found, for an author and an administrator alike", async () => {
    const services = testServices(db.sql);
    const owner = await newAuthor(db.sql);
    const validation = await uploadAndValidate(services, owner, scriptPackage("not-yours"));
    for (const other of [await newAuthor(db.sql), await newAuthor(db.sql, { admin: true })]) {
      await expect(
        validateAuthoringUpload(services, other, { upload_id: validation.upload_id }),
      ).rejects.toMatchObject({
        code: "not_found",
      });
      await expect(
        publishAuthoringUpload(services, other, {
          upload_id: validation.upload_id,
          plan_hash: validation.plan_hash!,
        }),
      ).rejects.toMatchObject({ code: "not_found" });
    }
  });

  it("trusted authors and administrators without the author capability publish their own uploads", async () => {
    const services = testServices(db.sql);
    const trusted = await newUser(db.sql, { capabilities: ["trusted_author"] });
    expect((await publishFiles(services, trusted, scriptPackage("by-trusted"))).problems[0]?.action).toBe(
      "create",
    );
    const admin = await newUser(db.sql, { admin: true });
    const published = await publishFiles(services, admin, scriptPackage("by-admin"));
    const [problem] =
      await db.sql`select owner_user_id from problems where id = ${published.problems[0]!.problem_id}`;
    expect(problem!.owner_user_id).toBe(admin.user.id);
  });

  it("an administrator whose role is revoked after validation may no longer publish to others' work", async () => {
    const services = testServices(db.sql);
    const owner = await newAuthor(db.sql);
    const admin = await newAuthor(db.sql, { admin: true });
    await publishFiles(services, owner, scriptPackage("revoked-admin"));
    const files = {
      ...scriptPackage("revoked-admin"),
      "statement.md": "# Root\n\nFind the integer root of 1522756.\n",
    };
    const validation = await uploadAndValidate(services, admin, files);
    expect(validation.reconciliation?.problems[0]?.action).toBe("revise");
    await setAdministrator(db.sql, admin.user.id, false);
    const before = await recordCounts(db.sql);
    await expect(
      publishAuthoringUpload(services, admin, {
        upload_id: validation.upload_id,
        plan_hash: validation.plan_hash!,
      }),
    ).rejects.toMatchObject({ code: "forbidden", details: { role: "administrator" } });
    expect(await recordCounts(db.sql)).toEqual(before);
  });

  it("archiving needs the author capability and ownership", async () => {
    const services = testServices(db.sql);
    const owner = await newAuthor(db.sql);
    const published = await publishFiles(services, owner, scriptPackage("archive-guarded"));
    const stranger = await newAuthor(db.sql);
    // Private work of someone else is not revealed; visible work is refused.
    await expect(archiveProblem(services, stranger, { problem: "archive-guarded" })).rejects.toMatchObject({
      code: "not_found",
    });
    await db.sql`update problems set visibility = 'unlisted' where id = ${published.problems[0]!.problem_id}`;
    await expect(
      archiveProblem(services, stranger, { problem: published.problems[0]!.problem_id }),
    ).rejects.toMatchObject({ code: "forbidden" });
    const admin = await newAuthor(db.sql, { admin: true });
    await expect(archiveProblem(services, admin, { problem: "archive-guarded" })).rejects.toMatchObject({
      code: "forbidden",
    });
    const contributor = await newUser(db.sql);
    await expect(archiveCampaign(services, contributor, { campaign: "anything" })).rejects.toMatchObject({
      code: "forbidden",
      details: { capability: "author" },
    });
    const [problem] =
      await db.sql`select status from problems where id = ${published.problems[0]!.problem_id}`;
    expect(problem!.status).toBe("open");
  });
});
