import { sha256 } from "@svc/app";
import { expect, it } from "vitest";
import { buildApp } from "../../src/edges/cli/build-app.ts";
import { authoringTools } from "../../src/edges/mcp/tools/authoring-tools.ts";
import type { Tool, ToolContext } from "../../src/edges/mcp/tools/tool.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { builtinsOnly, testServices } from "../support/test-services.ts";
import { fixturePackage, newAuthor, putUpload, zipFiles } from "./support/authoring-harness.ts";

function tool(name: string): Tool {
  const found = authoringTools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

it("declares the authoring tools with their scopes and kinds (spec 4.1: archiving is a write, not destructive)", () => {
  expect(authoringTools.map((t) => [t.name, t.scope, t.kind])).toEqual([
    ["request_authoring_upload", "contribute", "write"],
    ["validate_authoring_upload", "contribute", "write"],
    ["publish_authoring_upload", "contribute", "write"],
    ["archive_campaign", "contribute", "write"],
    ["archive_problem", "contribute", "write"],
  ]);
  const request = tool("request_authoring_upload").input;
  expect(request.safeParse({ size_bytes: 67108865, content_hash: sha256("x") }).success).toBe(false);
  expect(request.safeParse({ size_bytes: 10, content_hash: "md5:abc" }).success).toBe(false);
  expect(tool("publish_authoring_upload").input.safeParse({ upload_id: "aup_x" }).success).toBe(false);
});

describeWithDatabase("the authoring tools end to end", () => {
  const db = useTestDatabase();

  it("request, PUT, validate and publish through the tools give the spec's envelopes", async () => {
    const services = testServices(db.sql, { sandbox: builtinsOnly() });
    const app = buildApp(services);
    const author = await newAuthor(db.sql);
    const context: ToolContext = { services, principal: author, baseUrl: "https://svc.example" };
    const call = async (name: string, input: unknown) => {
      const t = tool(name);
      return await t.run(context, t.input.parse(input));
    };
    const bytes = await zipFiles(fixturePackage("valid-campaign"));
    const requested = await call("request_authoring_upload", {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    expect(Object.keys(requested).sort()).toEqual(["expires_at", "max_bytes", "upload_id", "upload_url"]);
    expect(String(requested.upload_url).startsWith("https://svc.example/up/")).toBe(true);
    expect((await putUpload(app, String(requested.upload_url), bytes)).statusCode).toBe(200);

    const validated = await call("validate_authoring_upload", { upload_id: requested.upload_id });
    expect(validated).toMatchObject({
      upload_id: requested.upload_id,
      state: "validated",
      valid: true,
      conformance: [],
    });
    expect(Object.keys(validated).sort()).toEqual(
      [
        "conformance",
        "conformance_state",
        "errors",
        "images",
        "notes",
        "plan",
        "plan_hash",
        "reconciliation",
        "state",
        "upload_id",
        "valid",
      ].sort(),
    );
    expect(validated.reconciliation).toMatchObject({
      campaign: { slug: "integer-root-campaign", action: "create" },
      counts: { create: 1, update: 0, revise: 0, noop: 0, conflict: 0 },
      warnings: [],
    });

    const published = await call("publish_authoring_upload", {
      upload_id: requested.upload_id,
      plan_hash: validated.plan_hash,
    });
    expect(Object.keys(published).sort()).toEqual(
      [
        "campaign",
        "campaign_id",
        "counts",
        "problems",
        "reconciliation",
        "review_protocol_ids",
        "skill_version_ids",
        "verifier_contract_ids",
        "verifier_implementation_ids",
      ].sort(),
    );
    expect(published.campaign).toMatchObject({
      slug: "integer-root-campaign",
      action: "create",
      status: "active",
      visibility: "private",
    });
    const archived = await call("archive_problem", { problem: "integer-root" });
    expect(archived).toMatchObject({ problem: { slug: "integer-root", status: "archived" } });
    await app.close();
  });
});
