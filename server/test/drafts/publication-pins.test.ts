import { sha256 } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fixturePackage, zipFiles } from "../authoring/support/authoring-harness.ts";
import type { TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { scriptRuntimesBound, testServices } from "../support/test-services.ts";
import { call, connect, type DraftUser, draftUser } from "./draft-harness.ts";

describeWithDatabase("drafts from uploads and requests that pin a work snapshot", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let author: DraftUser;
  let asAuthor: TestClient;
  let asAdmin: TestClient;
  let asOther: TestClient;

  /** Requests an authoring upload and PUTs the package's ZIP to its signed URL over HTTP. */
  const upload = async (client: TestClient) => {
    const bytes = await zipFiles(fixturePackage("valid-campaign"));
    const requested = await call(client, "request_authoring_upload", {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    const put = await fetch(String(requested.upload_url), {
      method: "PUT",
      headers: { "content-type": "application/zip" },
      body: bytes,
    });
    expect(put.status).toBe(200);
    return String(requested.upload_id);
  };

  beforeAll(async () => {
    app = await startApp(testServices(db.sql, { sandbox: scriptRuntimesBound() }));
    author = await draftUser(db.sql, { capabilities: ["author"] });
    asAuthor = await connect(app.url, author);
    asAdmin = await connect(app.url, await draftUser(db.sql, { admin: true }));
    asOther = await connect(app.url, await draftUser(db.sql, { capabilities: ["author"] }));
  });
  afterAll(async () => {
    await Promise.all([asAuthor?.close(), asAdmin?.close(), asOther?.close()]);
    await app?.close();
  });

  it("saves a draft from the owner's own upload, never from another user's", async () => {
    const uploadId = await upload(asAuthor);
    const saved = await call(asAuthor, "save_work_draft", { upload_id: uploadId });
    const files = (saved.draft as { files: Array<{ path: string; content_hash: string }> }).files;
    const expected = fixturePackage("valid-campaign");
    expect(files.map((f) => f.path).sort()).toEqual(Object.keys(expected).sort());
    for (const file of files) expect(file.content_hash).toBe(sha256(expected[file.path]!));
    expect((await call(asOther, "save_work_draft", { upload_id: uploadId })).error).toMatchObject({
      code: "not_found",
      upload_id: uploadId,
    });
  });

  it("approves a request pinning a work snapshot, and refuses one whose snapshot went stale", async () => {
    // 1. Private work published through the upload flow.
    const uploadId = await upload(asAuthor);
    const validated = await call(asAuthor, "validate_authoring_upload", { upload_id: uploadId });
    await call(asAuthor, "publish_authoring_upload", { upload_id: uploadId, plan_hash: validated.plan_hash });
    const work = { campaign: "integer-root-campaign" };
    const read = await call(asAuthor, "get_work_management", { work });

    // 2. Request it listed, pinning the snapshot; an administrator approves; it is listed.
    const requested = await call(asAuthor, "request_work_publication", {
      work,
      expected_snapshot: read.snapshot,
    });
    const request = requested.request as { id: string; work: unknown; work_snapshot: string };
    expect(request).toMatchObject({
      work: { campaign: expect.stringMatching(/^cmp_/) },
      work_snapshot: read.snapshot,
    });
    const approved = await call(asAdmin, "review_work_publication", {
      request_id: request.id,
      decision: "approve",
    });
    expect(approved.request).toMatchObject({ status: "approved" });
    expect((await call(asAuthor, "get_work_management", { work })).work).toMatchObject({
      visibility: "listed",
    });

    // 3. A second request goes stale when the work changes before review; rejecting it needs a reason.
    const current = await call(asAuthor, "get_work_management", { work });
    const second = (
      await call(asAuthor, "request_work_publication", {
        work,
        expected_snapshot: current.snapshot,
        visibility: "unlisted",
      })
    ).request as { id: string };
    await call(asAuthor, "update_work_details", {
      work,
      expected_snapshot: current.snapshot,
      title: "Renamed",
    });
    expect(
      (await call(asAdmin, "review_work_publication", { request_id: second.id, decision: "approve" })).error
        ?.code,
    ).toBe("stale_publication_request");
    expect(
      (await call(asAdmin, "review_work_publication", { request_id: second.id, decision: "reject" })).error,
    ).toMatchObject({
      code: "invalid_input",
      field: "reason_md",
    });
    const rejected = await call(asAdmin, "review_work_publication", {
      request_id: second.id,
      decision: "reject",
      reason_md: "The title changed after the request; ask again.",
    });
    expect(rejected.request).toMatchObject({
      status: "rejected",
      reason_md: expect.stringContaining("title"),
    });
    expect((await call(asAuthor, "get_work_management", { work })).work).toMatchObject({
      visibility: "listed",
    });

    // 4. A stale snapshot is refused at request time too.
    expect(
      (await call(asAuthor, "request_work_publication", { work, expected_snapshot: read.snapshot })).error
        ?.code,
    ).toBe("conflict");
  });
});
