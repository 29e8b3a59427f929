import { LintCode, sha256 } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { type App, buildApp } from "../../src/edges/cli/build-app.ts";
import { INLINE_RESOURCE_LIMIT } from "../../src/edges/mcp/resources/resource-bytes.ts";
import type { ResourceContent } from "../../src/edges/mcp/resources/resource-template.ts";
import { discoveryResources } from "../../src/edges/mcp/tools/discovery-tools.ts";
import { compileUriTemplate } from "../../src/edges/mcp/uri-template-matcher.ts";
import {
  contractDocument,
  type SeededProblem,
  type SeededUser,
  seedContract,
  seedProblem,
  seedSkillVersion,
  seedUser,
} from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { TEST_BASE_URL } from "./call-tool.ts";

const NOW = new Date("2030-06-01T00:00:00Z");
const BINARY = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x01]);
const WITH_BOM = "\uFEFFhello\n";

describeWithDatabase("svc:// resources", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: App;
  let owner: SeededUser;
  let stranger: SeededUser;
  let problem: SeededProblem;
  let secret: SeededProblem;
  let listedSkill: string;
  let privateSkill: string;

  /** Reads a URI through the template that matches it, as the MCP endpoint does. */
  async function read(caller: SeededUser, uri: string): Promise<ResourceContent[]> {
    for (const template of discoveryResources) {
      const variables = compileUriTemplate(template.uriTemplate).match(uri);
      if (!variables) continue;
      return template.read({ services, principal: caller.principal, baseUrl: TEST_BASE_URL }, uri, variables);
    }
    throw new Error(`no template matches ${uri}`);
  }
  const referenceUri = (p: SeededProblem, key: string) =>
    `svc://problem-revisions/${p.revisionId}/reference/${key}`;

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => NOW, baseUrl: TEST_BASE_URL });
    app = buildApp(services);
    owner = await seedUser(db.sql, "resource-owner", { capabilities: ["author"] });
    stranger = await seedUser(db.sql, "resource-stranger", { scopes: ["read"] });
    listedSkill = await seedSkillVersion(services, {
      publisher: owner.id,
      name: "listed-skill",
      files: { "SKILL.md": "# Listed skill\n", "data/table.bin": BINARY },
    });
    privateSkill = await seedSkillVersion(services, {
      publisher: owner.id,
      name: "private-skill",
      files: { "SKILL.md": "# Private skill\n" },
    });
    const yanked = await seedSkillVersion(services, {
      publisher: owner.id,
      name: "yanked-skill",
      files: { "SKILL.md": "# Yanked\n" },
      yanked: true,
    });
    const contract = await seedContract(
      db.sql,
      owner.id,
      contractDocument([
        { key: "text" },
        { key: "binary" },
        { key: "bom" },
        { key: "exact" },
        { key: "large" },
        { key: "remote" },
        { key: "hidden", sealed: true },
      ]),
    );
    problem = await seedProblem(services, {
      owner: owner.id,
      slug: "resourceful",
      visibility: "listed",
      revision: {
        verifierContractId: contract,
        skillRefs: [
          { skill_version_id: listedSkill, requirement: "required" },
          { skill_version_id: yanked, requirement: "recommended" },
        ],
        bindings: [
          { key: "text", bytes: "plain text\n", filename: "text.txt" },
          { key: "binary", bytes: BINARY, filename: "binary.png" },
          { key: "bom", bytes: WITH_BOM, filename: "bom.txt" },
          { key: "exact", bytes: Buffer.alloc(INLINE_RESOURCE_LIMIT, 0x61), filename: "exact.txt" },
          { key: "large", bytes: Buffer.alloc(INLINE_RESOURCE_LIMIT + 1, 0x62), filename: "large.txt" },
          {
            key: "remote",
            link: {
              url: "https://data.example.org/remote.csv",
              content_hash: sha256("a,b\n"),
              size_bytes: 4,
              media_type: "text/csv",
              filename: "remote.csv",
            },
          },
          { key: "hidden", bytes: "sealed bytes", filename: "hidden.txt" },
        ],
        sealing: { sealed_until: "2031-01-01T00:00:00Z", unsealed_at: null },
      },
    });
    secret = await seedProblem(services, {
      owner: owner.id,
      slug: "resourceful-private",
      revision: {
        verifierContractId: contract,
        skillRefs: [{ skill_version_id: privateSkill, requirement: "required" }],
        bindings: [{ key: "text", bytes: "private text\n", filename: "text.txt" }],
      },
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it("inlines a UTF-8 input as text with its media type and _meta", async () => {
    const [content] = await read(stranger, referenceUri(problem, "text"));
    expect(content).toEqual({
      uri: referenceUri(problem, "text"),
      mimeType: "text/plain",
      text: "plain text\n",
      _meta: { content_hash: sha256("plain text\n"), size_bytes: 11 },
    });
  });

  it("gives bytes that are not UTF-8 as base64, and keeps a leading byte order mark", async () => {
    const [binary] = await read(stranger, referenceUri(problem, "binary"));
    expect(binary).toMatchObject({ mimeType: "image/png", blob: Buffer.from(BINARY).toString("base64") });
    expect(binary).not.toHaveProperty("text");
    const [bom] = await read(stranger, referenceUri(problem, "bom"));
    expect(bom!.text).toBe(WITH_BOM);
    expect(bom!.text!.charCodeAt(0)).toBe(0xfeff);
  });

  it("inlines exactly 5 MiB and links anything larger", async () => {
    const [exact] = await read(stranger, referenceUri(problem, "exact"));
    expect(exact!.text).toHaveLength(INLINE_RESOURCE_LIMIT);
    const [large] = await read(stranger, referenceUri(problem, "large"));
    expect(large!.mimeType).toBe("application/json");
    const pointer = JSON.parse(large!.text!);
    expect(pointer).toEqual({
      size_bytes: INLINE_RESOURCE_LIMIT + 1,
      content_hash: sha256(Buffer.alloc(INLINE_RESOURCE_LIMIT + 1, 0x62)),
      download_url: expect.stringMatching(/^http:\/\/svc\.test\/dl\//),
      expires_at: "2030-06-01T00:15:00.000Z",
    });
    expect(large!._meta).toEqual({
      content_hash: pointer.content_hash,
      size_bytes: INLINE_RESOURCE_LIMIT + 1,
    });
    const response = await app.inject({ method: "GET", url: new URL(pointer.download_url).pathname });
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.length).toBe(INLINE_RESOURCE_LIMIT + 1);
    expect(response.headers["x-svc-content-hash"]).toBe(pointer.content_hash);
  });

  it("gives a linked input as a JSON pointer", async () => {
    const [content] = await read(stranger, referenceUri(problem, "remote"));
    expect(JSON.parse(content!.text!)).toEqual({
      linked: true,
      url: "https://data.example.org/remote.csv",
      media_type: "text/csv",
      filename: "remote.csv",
      content_hash: sha256("a,b\n"),
      size_bytes: 4,
    });
    expect(content!._meta).toEqual({ content_hash: sha256("a,b\n"), size_bytes: 4 });
  });

  it("reads a sealed input for its manager only", async () => {
    await expect(read(stranger, referenceUri(problem, "hidden"))).rejects.toMatchObject({ code: "sealed" });
    const [content] = await read(owner, referenceUri(problem, "hidden"));
    expect(content!.text).toBe("sealed bytes");
  });

  it("answers not_found for private work, unknown keys and unknown revisions", async () => {
    await expect(read(stranger, referenceUri(secret, "text"))).rejects.toMatchObject({ code: "not_found" });
    expect((await read(owner, referenceUri(secret, "text")))[0]!.text).toBe("private text\n");
    await expect(read(stranger, referenceUri(problem, "nope"))).rejects.toMatchObject({ code: "not_found" });
    await expect(
      read(stranger, "svc://problem-revisions/prv_00000000000000000000/reference/text"),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("gives a skill version's manifest for the empty path and each file by path", async () => {
    const [manifest] = await read(stranger, `svc://skill-versions/${listedSkill}/`);
    const body = JSON.parse(manifest!.text!);
    expect(body).toMatchObject({ skill_version_id: listedSkill, name: "listed-skill", version_number: 1 });
    expect(body.files.map((f: { path: string; resource_uri: string }) => [f.path, f.resource_uri])).toEqual([
      ["SKILL.md", `svc://skill-versions/${listedSkill}/SKILL.md`],
      ["data/table.bin", `svc://skill-versions/${listedSkill}/data/table.bin`],
    ]);
    const [entry] = await read(stranger, `svc://skill-versions/${listedSkill}/SKILL.md`);
    expect(entry).toMatchObject({ mimeType: "text/markdown", text: "# Listed skill\n" });
    const [table] = await read(stranger, `svc://skill-versions/${listedSkill}/data/table.bin`);
    expect(table!.blob).toBe(Buffer.from(BINARY).toString("base64"));
    await expect(read(stranger, `svc://skill-versions/${listedSkill}/missing.md`)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("hides a skill only private work uses, and lists recent skills of listed work", async () => {
    await expect(read(stranger, `svc://skill-versions/${privateSkill}/SKILL.md`)).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await read(owner, `svc://skill-versions/${privateSkill}/SKILL.md`))[0]!.text).toBe(
      "# Private skill\n",
    );
    const template = discoveryResources.find((t) => t.uriTemplate.startsWith("svc://skill-versions/"))!;
    const listFor = async (caller: SeededUser) =>
      (await template.list!({ services, principal: caller.principal, baseUrl: TEST_BASE_URL })).map(
        (r) => r.uri,
      );
    expect(await listFor(stranger)).toEqual([`svc://skill-versions/${listedSkill}/SKILL.md`]);
    const own = await listFor(owner);
    expect(own).toContain(`svc://skill-versions/${privateSkill}/SKILL.md`);
    expect(own.some((uri) => uri.includes("yanked"))).toBe(false);
    expect(own).toHaveLength(2);
  });

  it("serves the authoring skill: SKILL.md, its files and their list", async () => {
    const [skill] = await read(stranger, "svc://authoring/skill/latest");
    expect(skill!.mimeType).toBe("text/markdown");
    expect(skill!.text).toMatch(/^---\nname: svc-authoring\ndescription: .+\n---\n/);
    const [list] = await read(stranger, "svc://authoring/skill/latest/");
    const paths = JSON.parse(list!.text!).files.map((f: { path: string }) => f.path);
    expect(paths).toEqual(["SKILL.md", "reference/publishing.md", "reference/verifier-contract.md"]);
    for (const path of paths) {
      const [file] = await read(stranger, `svc://authoring/skill/latest/${path}`);
      expect(file!.text!.length).toBeGreaterThan(100);
    }
    for (const path of ["../package.json", "reference/../../README.md", "nope.md"]) {
      await expect(read(stranger, `svc://authoring/skill/latest/${path}`)).rejects.toMatchObject({
        code: "not_found",
      });
    }
  });

  it("documents every lint code in the authoring skill", async () => {
    const [skill] = await read(stranger, "svc://authoring/skill/latest");
    for (const code of Object.values(LintCode)) expect(skill!.text).toContain(`\`${code}\``);
  });

  it("serves the authoring skill at /docs/authoring-skill with no credentials", async () => {
    const entry = await app.inject({ method: "GET", url: "/docs/authoring-skill" });
    expect(entry.statusCode).toBe(200);
    expect(entry.headers["content-type"]).toBe("text/markdown; charset=utf-8");
    expect(entry.body).toContain("name: svc-authoring");
    const file = await app.inject({ method: "GET", url: "/docs/authoring-skill/reference/publishing.md" });
    expect(file.statusCode).toBe(200);
    expect(file.body).toContain("# Publishing");
    for (const url of [
      "/docs/authoring-skill/../../package.json",
      "/docs/authoring-skill/%2e%2e/README.md",
    ]) {
      expect((await app.inject({ method: "GET", url })).statusCode).toBe(404);
    }
  });
});
