import { sha256 } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ServiceError } from "../../src/core/errors/service-error.ts";
import type { Services } from "../../src/core/services/services.ts";
import { prepareWorkDraft } from "../../src/drafts/prepare-work-draft.ts";
import { zipFiles } from "../authoring/support/authoring-harness.ts";
import type { TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { builtinsOnly, scriptRuntimesBound, testServices } from "../support/test-services.ts";
import {
  call,
  connect,
  type DraftUser,
  draftFiles,
  draftUser,
  uniqueCampaignFiles,
} from "./draft-harness.ts";

describeWithDatabase("an agent authors work through drafts over MCP", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let services: Services;
  let author: DraftUser;
  let admin: DraftUser;
  let other: DraftUser;
  let asAuthor: TestClient;
  let asAdmin: TestClient;
  let asOther: TestClient;

  beforeAll(async () => {
    services = testServices(db.sql, { sandbox: scriptRuntimesBound() });
    app = await startApp(services);
    author = await draftUser(db.sql, { capabilities: ["author"] });
    admin = await draftUser(db.sql, { admin: true });
    other = await draftUser(db.sql);
    [asAuthor, asAdmin, asOther] = await Promise.all([
      connect(app.url, author),
      connect(app.url, admin),
      connect(app.url, other),
    ]);
  });
  afterAll(async () => {
    await Promise.all([asAuthor?.close(), asAdmin?.close(), asOther?.close()]);
    await app?.close();
  });

  it("refuses to materialize a script checker whose runtime this deployment has unbound (spec 3)", async () => {
    const scripter = await draftUser(db.sql, { capabilities: ["author"] });
    const asScripter = await connect(app.url, scripter);
    const saved = await call(asScripter, "save_work_draft", {
      title: "Unbound script",
      files: draftFiles("valid-script"),
    });
    await asScripter.close();
    const draft = saved.draft as { id: string };
    // On a deployment with builtins only, no sandbox runs svc-runtime/python:1: its state is unbound.
    const unboundHere = { ...services, sandbox: builtinsOnly() };
    const refused = await prepareWorkDraft(
      unboundHere,
      { userId: scripter.id, isAdministrator: false },
      { draft_id: draft.id, expected_version: "1" },
    ).then(
      () => ({ error: undefined }),
      (error: ServiceError) => {
        if (typeof error.toBody !== "function") throw error;
        return { error: { ...error.toBody().error } };
      },
    );
    expect(refused.error).toMatchObject({
      code: "draft_invalid",
      errors: [
        { code: "unsupported_runtime", message: expect.stringContaining("svc-runtime/python:1 is unbound") },
      ],
    });
    expect(refused.error!.message).toContain("cannot materialize as a draft");
    const [materialized] = await db.sql<{ count: number }[]>`
      select count(*)::int as count from problems where slug = 'integer-root'`;
    expect(materialized!.count).toBe(0);
    const [stored] = await db.sql<{ status: string; lint_errors: unknown }[]>`
      select status, lint_errors from work_drafts where id = ${draft.id}`;
    expect(stored).toMatchObject({
      status: "invalid",
      lint_errors: [expect.objectContaining({ code: "unsupported_runtime" })],
    });
  });

  it("saves, reads back, prepares, requests, is approved and listed, and the audit shows every step", async () => {
    const files = draftFiles("valid-campaign");
    // 1. Save a draft with the package's files.
    const saved = await call(asAuthor, "save_work_draft", { title: "Integer roots", files });
    expect(saved.version).toBe("1");
    const draft = saved.draft as { id: string; status: string; files: Array<{ path: string }> };
    expect(draft.status).toBe("editing");
    expect(draft.files.map((f) => f.path)).toEqual(files.map((f) => f.path));

    // 2. Read it back: the draft, its file list, one file whole and one in bounded pieces.
    expect((await call(asAuthor, "get_work_draft", { draft_id: draft.id })).draft).toMatchObject({
      id: draft.id,
      owner_user_id: author.id,
      title: "Integer roots",
      version: "1",
    });
    const listing = await call(asAuthor, "read_work_draft_file", { draft_id: draft.id });
    expect((listing.files as Array<{ path: string }>).map((f) => f.path)).toContain("campaign.json");
    const campaignJson = files.find((f) => f.path === "campaign.json")!.content_text!;
    const whole = await call(asAuthor, "read_work_draft_file", { draft_id: draft.id, path: "campaign.json" });
    expect(whole).toMatchObject({
      path: "campaign.json",
      content_hash: sha256(campaignJson),
      size_bytes: Buffer.byteLength(campaignJson),
      offset: 0,
      next_offset: null,
    });
    expect(Buffer.from(String(whole.content_base64), "base64").toString("utf8")).toBe(campaignJson);
    const first = await call(asAuthor, "read_work_draft_file", {
      draft_id: draft.id,
      path: "campaign.json",
      limit: 10,
    });
    expect(first.next_offset).toBe(10);
    const rest = await call(asAuthor, "read_work_draft_file", {
      draft_id: draft.id,
      path: "campaign.json",
      offset: 10,
    });
    expect(
      Buffer.concat([
        Buffer.from(String(first.content_base64), "base64"),
        Buffer.from(String(rest.content_base64), "base64"),
      ]).toString("utf8"),
    ).toBe(campaignJson);
    expect((await call(asAuthor, "list_work_drafts", {})).drafts).toEqual([
      expect.objectContaining({ id: draft.id }),
    ]);

    // 3. Prepare it: private work appears, for its owner only.
    const prepared = await call(asAuthor, "prepare_work_draft", {
      draft_id: draft.id,
      expected_version: "1",
    });
    expect(prepared.draft).toMatchObject({
      status: "prepared",
      prepared_version: "1",
      visibility: "private",
    });
    expect(prepared.publication).toMatchObject({
      campaign: { slug: "integer-root-campaign", action: "create", visibility: "private" },
      problems: [expect.objectContaining({ slug: "integer-root", revision_number: 1 })],
    });
    const managed = await call(asAuthor, "get_work_management", {
      work: { campaign: "integer-root-campaign" },
    });
    expect(managed.work).toMatchObject({ visibility: "private", owner_user_id: author.id });
    expect((await call(asOther, "get_problem", { problem: "integer-root" })).error?.code).toBe("not_found");

    // 4. Request publication, pinning version "1".
    const requested = await call(asAuthor, "request_work_publication", {
      draft_id: draft.id,
      expected_version: "1",
      note_md: "Ready for the catalogue.",
    });
    const request = requested.request as { id: string; status: string; draft_version: string };
    expect(request).toMatchObject({ status: "pending", draft_version: "1", visibility: "listed" });
    expect((await call(asAuthor, "list_publication_requests", {})).error?.code).toBe("forbidden");
    expect((await call(asAdmin, "list_publication_requests", { status: "pending" })).requests).toEqual([
      expect.objectContaining({ id: request.id, requester_user_id: author.id }),
    ]);

    // 5. An administrator approves: exactly the pinned version is published and listed.
    const approved = await call(asAdmin, "review_work_publication", {
      request_id: request.id,
      decision: "approve",
      reason_md: "Clear statement, sound checker.",
    });
    expect(approved.request).toMatchObject({ status: "approved", reviewer_user_id: admin.id });
    expect((await call(asAuthor, "get_work_draft", { draft_id: draft.id })).draft).toMatchObject({
      status: "published",
      published_version: "1",
      reviewed_version: "1",
      visibility: "listed",
    });
    expect((await call(asOther, "get_problem", { problem: "integer-root" })).problem).toMatchObject({
      slug: "integer-root",
    });
    const found = await call(asOther, "search_problems", { query: "integer" });
    expect((found.problems as Array<{ slug: string }>).map((p) => p.slug)).toContain("integer-root");

    // 6. The audit trail shows each step with its actor, newest first.
    const audit = await call(asAuthor, "list_work_audit", { draft_id: draft.id });
    const steps = (audit.entries as Array<Record<string, unknown>>)
      .map((e) => [e.action, e.subject_kind, e.actor_handle])
      .reverse();
    expect(steps).toEqual(
      expect.arrayContaining([
        ["save_draft", "work_draft", author.handle],
        ["prepare_draft", "work_draft", author.handle],
        ["create", "campaign", author.handle],
        ["create", "problem", author.handle],
        ["request_publication", "publication_request", author.handle],
        ["set_visibility", "campaign", admin.handle],
        ["publish_draft", "work_draft", admin.handle],
        ["approve_publication", "publication_request", admin.handle],
      ]),
    );
    const order = steps.map(([action]) => action);
    expect(order.indexOf("save_draft")).toBeLessThan(order.indexOf("prepare_draft"));
    expect(order.indexOf("request_publication")).toBeLessThan(order.indexOf("approve_publication"));
    const createdProblem = (audit.entries as Array<Record<string, unknown>>).find(
      (e) => e.action === "create" && e.subject_kind === "problem",
    )!;
    expect(createdProblem.upload_id).toBe(
      (prepared.draft as { prepared_upload_id: string }).prepared_upload_id,
    );
    expect(createdProblem.plan_hash).toBe(prepared.plan_hash);
    expect(createdProblem.revisions_created).toEqual([
      { problem_revision_id: expect.stringMatching(/^prv_/), revision_number: 1 },
    ]);

    // 7. A proposed replacement of the reviewed revision is refused; the approved revision stays current.
    const statement = files.find((f) => f.path === "problems/integer-root/statement.md")!;
    const changed = files.map((f) =>
      f === statement ? { ...f, content_text: `${f.content_text}\nAnswer in decimal.\n` } : f,
    );
    const v2 = await call(asAuthor, "save_work_draft", {
      draft_id: draft.id,
      expected_version: "1",
      files: changed,
    });
    expect(v2.version).toBe("2");
    for (const tool of ["prepare_work_draft", "publish_work_draft"]) {
      const refused = await call(asAuthor, tool, {
        draft_id: draft.id,
        expected_version: "2",
        ...(tool === "publish_work_draft" ? { visibility: "unlisted" } : {}),
      });
      expect(refused.error).toMatchObject({ code: "revision_review_required", problems: ["integer-root"] });
    }
    // The upload path meets the same rule: the reviewed revision is not replaced behind the review.
    const bytes = await zipFiles(Object.fromEntries(changed.map((f) => [f.path, f.content_text!])));
    const upload = await call(asAuthor, "request_authoring_upload", {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    expect((await fetch(String(upload.upload_url), { method: "PUT", body: bytes })).status).toBe(200);
    const validated = await call(asAuthor, "validate_authoring_upload", { upload_id: upload.upload_id });
    expect(validated.reconciliation).toMatchObject({ counts: { revise: 1 } });
    const viaUpload = await call(asAuthor, "publish_authoring_upload", {
      upload_id: upload.upload_id,
      plan_hash: validated.plan_hash,
    });
    expect(viaUpload.error).toMatchObject({ code: "revision_review_required", problems: ["integer-root"] });
    expect((await call(asOther, "get_problem", { problem: "integer-root" })).problem).toMatchObject({
      current_revision_number: 1,
    });

    // 8. A request whose pin went stale cannot be approved; its requester withdraws it.
    const second = (
      await call(asAuthor, "request_work_publication", { draft_id: draft.id, expected_version: "2" })
    ).request as { id: string };
    const again = await call(asAuthor, "request_work_publication", {
      draft_id: draft.id,
      expected_version: "2",
    });
    expect(again.error).toMatchObject({ code: "conflict", reason: "request_pending" });
    await call(asAuthor, "save_work_draft", {
      draft_id: draft.id,
      expected_version: "2",
      title: "Integer roots II",
    });
    const stale = await call(asAdmin, "review_work_publication", {
      request_id: second.id,
      decision: "approve",
    });
    expect(stale.error?.code).toBe("stale_publication_request");
    expect(
      (await call(asOther, "review_work_publication", { request_id: second.id, decision: "withdraw" })).error
        ?.code,
    ).toBe("forbidden");
    const withdrawn = await call(asAuthor, "review_work_publication", {
      request_id: second.id,
      decision: "withdraw",
    });
    expect(withdrawn.request).toMatchObject({ status: "withdrawn" });
    const twice = await call(asAdmin, "review_work_publication", {
      request_id: second.id,
      decision: "reject",
      reason_md: "late",
    });
    expect(twice.error?.code).toBe("request_resolved");

    // 9. The replacement goes through review: approving its request publishes revision 2.
    const third = (
      await call(asAuthor, "request_work_publication", { draft_id: draft.id, expected_version: "3" })
    ).request as { id: string };
    const replaced = await call(asAdmin, "review_work_publication", {
      request_id: third.id,
      decision: "approve",
    });
    expect(replaced.request).toMatchObject({ status: "approved", draft_version: "3" });
    expect((await call(asOther, "get_problem", { problem: "integer-root" })).problem).toMatchObject({
      current_revision_number: 2,
    });
    expect((await call(asAuthor, "get_work_draft", { draft_id: draft.id })).draft).toMatchObject({
      reviewed_version: "3",
      published_version: "3",
      title: "Integer roots II",
    });
  });

  it("an administrator prepares an owner's draft: the work is the owner's, the audit names the administrator", async () => {
    const saved = await call(asAuthor, "save_work_draft", { files: uniqueCampaignFiles("byadmin") });
    const id = (saved.draft as { id: string }).id;
    const prepared = await call(asAdmin, "prepare_work_draft", { draft_id: id, expected_version: "1" });
    expect(prepared.draft).toMatchObject({ status: "prepared", owner_user_id: author.id });
    const work = { campaign: "integer-root-campaign-byadmin" };
    expect((await call(asAuthor, "get_work_management", { work })).work).toMatchObject({
      owner_user_id: author.id,
      visibility: "private",
    });
    const entries = (await call(asAuthor, "list_work_audit", { draft_id: id })).entries as Array<{
      action: string;
      actor_user_id: string;
    }>;
    expect(entries.find((e) => e.action === "prepare_draft")?.actor_user_id).toBe(admin.id);
    expect(entries.find((e) => e.action === "save_draft")?.actor_user_id).toBe(author.id);
  });

  it("a later prepare updates the same work: a changed statement revises the Problem, an unchanged one is a noop", async () => {
    const files = uniqueCampaignFiles("later");
    const saved = await call(asAuthor, "save_work_draft", { files });
    const id = (saved.draft as { id: string }).id;
    const first = await call(asAuthor, "prepare_work_draft", { draft_id: id, expected_version: "1" });
    const [created] = (
      first.publication as { problems: Array<{ problem_id: string; revision_number: number }> }
    ).problems;
    const changed = files.map((f) =>
      f.path.endsWith("statement.md") ? { ...f, content_text: `${f.content_text}\nShow your work.\n` } : f,
    );
    await call(asAuthor, "save_work_draft", { draft_id: id, expected_version: "1", files: changed });
    const second = await call(asAuthor, "prepare_work_draft", { draft_id: id, expected_version: "2" });
    expect(second.reconciliation).toMatchObject({ counts: { revise: 1, create: 0 } });
    expect((second.publication as { problems: unknown[] }).problems).toEqual([
      expect.objectContaining({ problem_id: created!.problem_id, revision_number: 2 }),
    ]);
    const third = await call(asAuthor, "prepare_work_draft", { draft_id: id, expected_version: "2" });
    expect(third.reconciliation).toMatchObject({ counts: { noop: 1, revise: 0 } });
    expect(
      (await call(asAuthor, "prepare_work_draft", { draft_id: id, expected_version: "1" })).error,
    ).toMatchObject({
      code: "stale_draft_version",
      current_version: "2",
    });
  });

  it("reads a large file back in bounded pieces that reassemble to its bytes", async () => {
    const big = new Uint8Array(600_000).map((_, i) => (i * 7919) % 251);
    const saved = await call(asAuthor, "save_work_draft", {
      files: [{ path: "data/big.bin", content_base64: Buffer.from(big).toString("base64") }],
    });
    const id = (saved.draft as { id: string }).id;
    const pieces: Buffer[] = [];
    const offsets: Array<number | null> = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const piece = await call(asAuthor, "read_work_draft_file", {
        draft_id: id,
        path: "data/big.bin",
        offset,
      });
      expect(piece).toMatchObject({ content_hash: sha256(big), size_bytes: 600_000, offset });
      pieces.push(Buffer.from(String(piece.content_base64), "base64"));
      offset = piece.next_offset as number | null;
      offsets.push(offset);
    }
    expect(offsets).toEqual([262_144, 524_288, null]);
    expect(Buffer.concat(pieces).equals(Buffer.from(big))).toBe(true);
  });

  it("reports an invalid draft's lint errors and marks it invalid", async () => {
    const files = draftFiles("valid-campaign").map((f) =>
      f.path === "problems/integer-root/problem.json" ? { ...f, content_text: "{ not json" } : f,
    );
    const saved = await call(asAuthor, "save_work_draft", { files });
    const id = (saved.draft as { id: string }).id;
    const refused = await call(asAuthor, "prepare_work_draft", { draft_id: id, expected_version: "1" });
    expect(refused.error).toMatchObject({
      code: "draft_invalid",
      errors: expect.arrayContaining([
        expect.objectContaining({ file: "problems/integer-root/problem.json", code: "invalid_json" }),
      ]),
    });
    expect((await call(asAuthor, "get_work_draft", { draft_id: id })).draft).toMatchObject({
      status: "invalid",
      lint_errors: expect.arrayContaining([expect.objectContaining({ code: "invalid_json" })]),
    });
  });

  it("of two saves with the same expected_version exactly one wins; the other names the current version", async () => {
    const saved = await call(asAuthor, "save_work_draft", {
      files: draftFiles("valid-campaign"),
      title: "race",
    });
    const id = (saved.draft as { id: string }).id;
    const results = await Promise.all(
      ["a", "b"].map((title) =>
        call(asAuthor, "save_work_draft", { draft_id: id, expected_version: "1", title }),
      ),
    );
    const won = results.filter((r) => r.version === "2");
    const lost = results.filter((r) => r.error);
    expect(won).toHaveLength(1);
    expect(lost).toEqual([
      {
        error: expect.objectContaining({
          code: "stale_draft_version",
          current_version: "2",
          expected_version: "1",
        }),
      },
    ]);
  });

  it("refuses bad input with the field named, and private reads take no working_attempt_id", async () => {
    const saved = await call(asAuthor, "save_work_draft", { files: [{ path: "a.md", content_text: "x" }] });
    const id = (saved.draft as { id: string }).id;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["save_work_draft", { files: [{ path: "../escape.md", content_text: "x" }] }, "files.0.path"],
      ["save_work_draft", { files: [{ path: "a.md" }] }, "files.0"],
      ["save_work_draft", { draft_id: id, title: "no version" }, "expected_version"],
      ["save_work_draft", {}, "files"],
      ["read_work_draft_file", { draft_id: id, path: "a.md", offset: 5 }, "offset"],
      ["get_work_draft", { draft_id: id, working_attempt_id: "att_0123456789" }, "working_attempt_id"],
      ["request_work_publication", { draft_id: id }, "expected_version"],
    ];
    for (const [tool, args, field] of cases) {
      const { error } = await call(asAuthor, tool, args);
      expect(error?.code, `${tool} ${JSON.stringify(args)}`).toBe("invalid_input");
      if (field) expect(error?.field, tool).toBe(field);
    }
  });
});
