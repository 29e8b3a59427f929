import { sha256 } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { type App, buildApp } from "../../src/edges/cli/build-app.ts";
import {
  contractDocument,
  type SeededProblem,
  type SeededUser,
  seedContract,
  seedProblem,
  seedUser,
} from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

describeWithDatabase("/api read routes", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: App;
  let owner: SeededUser;
  let reader: SeededUser;
  let listed: SeededProblem;
  let secret: SeededProblem;

  const get = (url: string, token?: string) =>
    app.inject({ method: "GET", url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  beforeAll(async () => {
    services = testServices(db.sql);
    app = buildApp(services);
    owner = await seedUser(db.sql, "api-owner", { capabilities: ["author"] });
    reader = await seedUser(db.sql, "api-reader", { scopes: ["read"] });
    const contract = await seedContract(
      db.sql,
      owner.id,
      contractDocument([
        { key: "instance" },
        { key: "remote", required: false },
        { key: "hidden", sealed: true },
      ]),
    );
    const revision = {
      statement: "Route the trains through the junction.",
      verifierContractId: contract,
      bindings: [
        { key: "instance", bytes: "junction data\n", filename: "instance.txt" },
        {
          key: "remote",
          link: {
            url: "https://data.example.org/junction.txt",
            content_hash: sha256("remote"),
            size_bytes: 6,
            media_type: "text/plain",
            filename: "junction.txt",
          },
        },
        { key: "hidden", bytes: "sealed answer key\n", filename: "hidden.txt" },
      ],
      sealing: { sealed_until: "2999-01-01T00:00:00Z", unsealed_at: null },
    };
    listed = await seedProblem(services, {
      owner: owner.id,
      slug: "junction",
      visibility: "listed",
      revision,
    });
    secret = await seedProblem(services, { owner: owner.id, slug: "junction-private", revision });
    for (let i = 0; i < 5; i++) {
      await seedProblem(services, {
        owner: owner.id,
        slug: `train-${i}`,
        visibility: "listed",
        priorityWeight: i / 10,
      });
    }
  });

  afterAll(async () => {
    await app.close();
  });

  it("needs a bearer token, and a 401 says where to learn how to get one", async () => {
    for (const url of [
      "/api/problems",
      "/api/problems/junction",
      `/api/problem-revisions/${listed.revisionId}/reference/instance`,
    ]) {
      const response = await get(url);
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe("unauthorized");
      expect(response.headers["www-authenticate"]).toMatch(
        /^Bearer resource_metadata="https?:\/\/[^"]+\/\.well-known\/oauth-protected-resource"$/,
      );
      expect((await get(url, "svc_bogus")).statusCode).toBe(401);
    }
  });

  it("searches with q and pages with limit and cursor", async () => {
    const found = await get("/api/problems?q=junction%20trains", reader.token);
    expect(found.statusCode).toBe(200);
    expect(found.json()).toMatchObject({ cursor: null, order: "priority" });
    expect(found.json().problems.map((p: { slug: string }) => p.slug)).toEqual(["junction"]);

    const slugs: string[] = [];
    let url = "/api/problems?limit=2&standalone=true&order=least_attempted";
    for (;;) {
      const page = (await get(url, reader.token)).json();
      expect(page.problems.length).toBeLessThanOrEqual(2);
      slugs.push(...page.problems.map((p: { slug: string }) => p.slug));
      if (page.cursor === null) break;
      url = `/api/problems?limit=2&standalone=true&order=least_attempted&cursor=${page.cursor}`;
    }
    expect(slugs.sort()).toEqual(["junction", "train-0", "train-1", "train-2", "train-3", "train-4"]);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=201", "limit"],
    ["limit=ten", "limit"],
    ["order=best", "order"],
    ["status=closed", "status"],
    ["structure=solve", "structure"],
    ["standalone=yes", "standalone"],
    ["cursor=%21%21", "cursor"],
    ["q=a&q=b", "q"],
    ["query=trains", "query"],
    ["campaign=no-such-campaign", "campaign"],
  ])("answers 400 invalid_input naming the parameter for %s", async (query, parameter) => {
    const response = await get(`/api/problems?${query}`, reader.token);
    if (parameter === "campaign") {
      expect(response.statusCode).toBe(404);
      return;
    }
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: "invalid_input", parameter });
    expect(response.json().error.message).toContain(`"${parameter}"`);
  });

  it("serves a reference input's bytes with its media type and x-svc-content-hash", async () => {
    const response = await get(
      `/api/problem-revisions/${listed.revisionId}/reference/instance`,
      reader.token,
    );
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe("junction data\n");
    expect(response.headers["content-type"]).toBe("text/plain");
    expect(response.headers["x-svc-content-hash"]).toBe(sha256("junction data\n"));
  });

  it("redirects a linked input to its url with the stated hash", async () => {
    const response = await get(`/api/problem-revisions/${listed.revisionId}/reference/remote`, reader.token);
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe("https://data.example.org/junction.txt");
    expect(response.headers["x-svc-content-hash"]).toBe(sha256("remote"));
  });

  it("serves a sealed input to its manager only", async () => {
    const url = `/api/problem-revisions/${listed.revisionId}/reference/hidden`;
    const refused = await get(url, reader.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ code: "sealed", sealed_until: "2999-01-01T00:00:00Z" });
    const manager = await get(url, owner.token);
    expect(manager.statusCode).toBe(200);
    expect(manager.body).toBe("sealed answer key\n");
  });

  it("answers 404 for private work, unknown keys and unknown revisions", async () => {
    for (const url of [
      `/api/problem-revisions/${secret.revisionId}/reference/instance`,
      `/api/problem-revisions/${listed.revisionId}/reference/nope`,
      "/api/problem-revisions/prv_00000000000000000000/reference/instance",
      "/api/problems/junction-private",
      "/api/problems/no-such-problem",
    ]) {
      const response = await get(url, reader.token);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe("not_found");
    }
    expect(
      (await get(`/api/problem-revisions/${secret.revisionId}/reference/instance`, owner.token)).statusCode,
    ).toBe(200);
  });

  it("refuses a bad revision parameter on GET /api/problems/{problem}", async () => {
    for (const query of ["revision=0", "revision=one", "rev=1"]) {
      const response = await get(`/api/problems/junction?${query}`, reader.token);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe("invalid_input");
    }
  });
});
