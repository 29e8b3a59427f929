import { sha256 } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { signUrl } from "../../src/core/signing/signed-url.ts";
import type { ProblemEnvelope } from "../../src/discovery/get-problem.ts";
import { type App, buildApp } from "../../src/edges/cli/build-app.ts";
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
import { TEST_SIGNING_SECRET, testServices } from "../support/test-services.ts";
import { callToolAs, TEST_BASE_URL } from "./call-tool.ts";

const START = new Date("2030-05-01T08:00:00Z");
const INSTANCE = "p cnf 2 1\n1 2 0\n";

describeWithDatabase("GET /dl/<payload>.<signature>", () => {
  const db = useTestDatabase();
  let now = START;
  let services: Services;
  let app: App;
  let owner: SeededUser;
  let stranger: SeededUser;
  let admin: SeededUser;
  let listed: SeededProblem;
  let secret: SeededProblem;

  const envelope = (caller: SeededUser, problem: string) =>
    callToolAs<ProblemEnvelope>(services, caller, "get_problem", { problem });
  const get = (path: string, token?: string) =>
    app.inject({ method: "GET", url: path, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const pathOf = (url: string) => new URL(url).pathname;
  const linkOf = async (caller: SeededUser, problem: string) =>
    pathOf((await envelope(caller, problem)).reference_resources[0]!.download_url!);

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => now, baseUrl: TEST_BASE_URL });
    app = buildApp(services);
    owner = await seedUser(db.sql, "dl-owner", { capabilities: ["author"] });
    stranger = await seedUser(db.sql, "dl-stranger", { scopes: ["read"] });
    admin = await seedUser(db.sql, "dl-admin", { admin: true, scopes: ["read"] });
    const contract = await seedContract(db.sql, owner.id, contractDocument([{ key: "instance" }]));
    const revision = {
      verifierContractId: contract,
      bindings: [{ key: "instance", bytes: INSTANCE, filename: "instance.cnf" }],
    };
    listed = await seedProblem(services, {
      owner: owner.id,
      slug: "dl-listed",
      visibility: "listed",
      revision,
    });
    secret = await seedProblem(services, { owner: owner.id, slug: "dl-private", revision });
  });

  afterAll(async () => {
    await app.close();
  });

  it("serves a fresh link without credentials", async () => {
    const response = await get(await linkOf(stranger, "dl-listed"));
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(INSTANCE);
    expect(response.headers["x-svc-content-hash"]).toBe(sha256(INSTANCE));
  });

  it("serves stored bytes inert: never sniffed, and sandboxed so declared HTML cannot run as this origin", async () => {
    const response = await get(await linkOf(stranger, "dl-listed"));
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["content-security-policy"]).toBe("default-src 'none'; sandbox");
  });

  it("refuses a tampered payload or signature with 403", async () => {
    const path = await linkOf(stranger, "dl-listed");
    const [payload, signature] = path.slice("/dl/".length).split(".") as [string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const otherTarget = Buffer.from(
      JSON.stringify({ ...claims, t: `reference:${secret.revisionId}/instance` }),
    ).toString("base64url");
    const flipped = signature.startsWith("A") ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    for (const bad of [
      `/dl/${otherTarget}.${signature}`,
      `/dl/${payload}.${flipped}`,
      `/dl/${payload}`,
      `${path}?x=1`,
    ]) {
      const response = await get(bad);
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe("signed_url_invalid");
    }
  });

  it("refuses an expired link with 403, from the instant it expires", async () => {
    const path = await linkOf(stranger, "dl-listed");
    now = new Date(START.getTime() + 15 * 60 * 1000 - 1);
    expect((await get(path)).statusCode).toBe(200);
    now = new Date(START.getTime() + 15 * 60 * 1000);
    const expired = await get(path);
    expect(expired.statusCode).toBe(403);
    expect(expired.json().error).toMatchObject({ code: "signed_url_invalid" });
    expect(expired.json().error.message).toContain("fresh download_url");
    now = START;
  });

  it("refuses a genuine signature over a target it does not serve, or one naming nothing", async () => {
    const expiresAt = new Date(START.getTime() + 60_000);
    for (const target of [
      "artifact:art_0123456789",
      `reference:${listed.revisionId}/no_such_key`,
      "reference:prv_00000000000000000000/instance",
      "blob:sha256:nothex",
    ]) {
      const response = await get(signUrl({ target, expiresAt }, TEST_SIGNING_SECRET));
      expect(response.statusCode).toBe(403);
    }
  });

  it("answers 410 when the stored bytes are gone", async () => {
    const bytes = Buffer.from("to be deleted");
    const stored = await services.blobs.put(bytes);
    const path = signUrl(
      { target: `blob:${stored.content_hash}`, expiresAt: new Date(START.getTime() + 60_000) },
      TEST_SIGNING_SECRET,
    );
    expect((await get(path)).statusCode).toBe(200);
    await services.blobs.delete(stored.content_hash);
    const gone = await get(path);
    expect(gone.statusCode).toBe(410);
    expect(gone.json().error.code).toBe("gone");
  });

  it("needs the bearer of an authorized user for private work, even with a valid signature", async () => {
    const path = await linkOf(owner, "dl-private");
    const anonymous = await get(path);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe("unauthorized");
    expect((await get(path, stranger.token)).statusCode).toBe(404);
    expect((await get(path, "svc_notarealtoken")).statusCode).toBe(401);
    for (const caller of [owner, admin]) {
      const response = await get(path, caller.token);
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(INSTANCE);
    }
  });

  it("follows the work: a link made while listed stops working anonymously once it is private", async () => {
    const path = await linkOf(stranger, "dl-listed");
    await db.sql`update problems set visibility = 'private' where id = ${listed.problemId}`;
    try {
      expect((await get(path)).statusCode).toBe(401);
      expect((await get(path, owner.token)).statusCode).toBe(200);
    } finally {
      await db.sql`update problems set visibility = 'listed' where id = ${listed.problemId}`;
    }
  });

  it("guards skill files of private work the same way", async () => {
    const skill = await seedSkillVersion(services, {
      publisher: owner.id,
      name: "private-skill",
      files: { "SKILL.md": "---\nname: private-skill\ndescription: Private.\n---\n" },
    });
    await seedProblem(services, {
      owner: owner.id,
      slug: "dl-private-skill",
      revision: { skillRefs: [{ skill_version_id: skill, requirement: "required" }] },
    });
    const { skill_resources } = await envelope(owner, "dl-private-skill");
    const path = pathOf(skill_resources[0]!.download_url!);
    expect((await get(path)).statusCode).toBe(401);
    expect((await get(path, stranger.token)).statusCode).toBe(404);
    expect((await get(path, owner.token)).statusCode).toBe(200);
  });

  it("never serves a sealed input, not even to its manager, and redirects a linked one", async () => {
    const contract = await seedContract(
      db.sql,
      owner.id,
      contractDocument([
        { key: "hidden", sealed: true },
        { key: "remote", required: false },
      ]),
    );
    const sealed = await seedProblem(services, {
      owner: owner.id,
      slug: "dl-sealed",
      visibility: "listed",
      revision: {
        verifierContractId: contract,
        bindings: [
          { key: "hidden", bytes: "secret" },
          {
            key: "remote",
            link: {
              url: "https://data.example.org/x.txt",
              content_hash: sha256("x"),
              size_bytes: 1,
              media_type: "text/plain",
              filename: "x.txt",
            },
          },
        ],
        sealing: { sealed_until: "2031-01-01T00:00:00Z", unsealed_at: null },
      },
    });
    const expiresAt = new Date(START.getTime() + 60_000);
    const sealedPath = signUrl(
      { target: `reference:${sealed.revisionId}/hidden`, expiresAt },
      TEST_SIGNING_SECRET,
    );
    const refused = await get(sealedPath, owner.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe("sealed");
    const linkedPath = signUrl(
      { target: `reference:${sealed.revisionId}/remote`, expiresAt },
      TEST_SIGNING_SECRET,
    );
    const redirect = await get(linkedPath);
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe("https://data.example.org/x.txt");
    expect(redirect.headers["x-svc-content-hash"]).toBe(sha256("x"));
  });
});
