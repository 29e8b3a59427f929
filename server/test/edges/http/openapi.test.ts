import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type App, buildApp } from "../../../src/edges/cli/build-app.ts";
import { apiRouteOf, pathFieldsOf } from "../../../src/edges/mcp/tool-routes.ts";
import type { Tool } from "../../../src/edges/mcp/tools/tool.ts";
import { tools } from "../../../src/edges/mcp/tools/tools.ts";
import { type SeededUser, seedUser } from "../../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";

/** A request each `/api` route must refuse, and the parameter the refusal must name. */
interface BadInput {
  url: string;
  parameter: string;
  in: "query" | "path";
}

const PRB = "prb_0000000000";
const PRV = "prv_0000000000";
const VRN = "vrn_0000000000";
const VFI = "vfi_0000000000";

/**
 * Bad input for every `/api` route, keyed by the route as fastify registers it. The test below
 * fails for a route added without an entry here, so every route's refusals are checked.
 */
const HAND_WRITTEN_BAD_INPUT: Readonly<Record<string, readonly BadInput[]>> = {
  "/api/openapi.json": [],
  "/api/problems": [
    { url: "/api/problems?limit=0", parameter: "limit", in: "query" },
    { url: "/api/problems?limit=1e3", parameter: "limit", in: "query" },
    { url: "/api/problems?limit=99999999999999999999", parameter: "limit", in: "query" },
    { url: "/api/problems?standalone=1", parameter: "standalone", in: "query" },
    { url: "/api/problems?order=newest", parameter: "order", in: "query" },
    { url: "/api/problems?q=a&q=b", parameter: "q", in: "query" },
    { url: "/api/problems?query=trains", parameter: "query", in: "query" },
    { url: "/api/problems?working_attempt_id=nope", parameter: "working_attempt_id", in: "query" },
  ],
  "/api/whoami": [{ url: "/api/whoami?verbose=1", parameter: "verbose", in: "query" }],
  "/api/organizations/:organization": [
    { url: `/api/organizations/${"o".repeat(65)}`, parameter: "organization", in: "path" },
    { url: "/api/organizations/team?x=1", parameter: "x", in: "query" },
  ],
  "/api/problems/:problem": [
    { url: `/api/problems/${"p".repeat(65)}`, parameter: "problem", in: "path" },
    { url: "/api/problems/junction?revision=0", parameter: "revision", in: "query" },
    { url: "/api/problems/junction?revision=%00", parameter: "revision", in: "query" },
    { url: "/api/problems/junction?revision=1&revision=2", parameter: "revision", in: "query" },
    { url: "/api/problems/junction?rev=1", parameter: "rev", in: "query" },
  ],
  "/api/problems/:problem/leaderboard": [
    { url: `/api/problems/${"p".repeat(65)}/leaderboard`, parameter: "problem", in: "path" },
    { url: "/api/problems/junction/leaderboard?revision=0", parameter: "revision", in: "query" },
    {
      url: "/api/problems/junction/leaderboard?working_attempt_id=nope",
      parameter: "working_attempt_id",
      in: "query",
    },
    { url: "/api/problems/junction/leaderboard?limit=5", parameter: "limit", in: "query" },
  ],
  "/api/problem-revisions/:revision/reference/:key": [
    { url: `/api/problem-revisions/${PRB}/reference/instance`, parameter: "revision", in: "path" },
    { url: `/api/problem-revisions/${PRV}/reference/Bad%20Key`, parameter: "key", in: "path" },
    {
      url: `/api/problem-revisions/${PRV}/reference/instance?download=1`,
      parameter: "download",
      in: "query",
    },
  ],
  "/api/problem-revisions/:revision/checkers/:stage/:filename": [
    { url: `/api/problem-revisions/${PRB}/checkers/check/checker.py`, parameter: "revision", in: "path" },
    { url: `/api/problem-revisions/${PRV}/checkers/Check/checker.py`, parameter: "stage", in: "path" },
    { url: `/api/problem-revisions/${PRV}/checkers/check/checker.py?raw=1`, parameter: "raw", in: "query" },
  ],
  "/api/verifications/:id": [
    { url: "/api/verifications/nope", parameter: "id", in: "path" },
    { url: `/api/verifications/${VFI}`, parameter: "id", in: "path" },
    {
      url: `/api/verifications/${VRN}?working_attempt_id=${VRN}`,
      parameter: "working_attempt_id",
      in: "query",
    },
    { url: `/api/verifications/${VRN}?format=html`, parameter: "format", in: "query" },
  ],
  // Public, like the document itself: no token to ask for first.
  "/api/runtimes": [],
  "/api/transparency-log": [],
  "/api/verifications/:id/attestations": [
    { url: "/api/verifications/nope/attestations", parameter: "id", in: "path" },
  ],
  "/api/verifier-implementations/:id/program": [
    { url: `/api/verifier-implementations/${VRN}/program`, parameter: "id", in: "path" },
    { url: `/api/verifier-implementations/${VFI}/program?raw=true`, parameter: "raw", in: "query" },
  ],
};

/**
 * The routes generated from the read tools (tool-routes.ts) refuse a bad path segment and an
 * unknown parameter, naming it; their tools' own fields are checked by the tools' schemas, as over /mcp.
 */
function firstRequiredField(tool: Tool): string | undefined {
  return Object.entries(tool.input.shape).find(
    ([name, field]) => !field.safeParse(undefined).success && !pathFieldsOf(apiRouteOf(tool)).includes(name),
  )?.[0];
}

/** A route with every path segment filled: the first with `first`, the others with a plain word. */
function filled(route: string, first: string): string {
  let index = 0;
  return route.replace(/:([a-z_]+)/g, () => (index++ === 0 ? first : "word"));
}

const BAD_INPUT: Readonly<Record<string, readonly BadInput[]>> = {
  ...HAND_WRITTEN_BAD_INPUT,
  ...Object.fromEntries(
    tools
      .filter((tool) => tool.kind === "read" && !tool.apiRouteByHand)
      .map((tool) => {
        const route = apiRouteOf(tool);
        const [inPath] = pathFieldsOf(route);
        const bad: BadInput[] =
          inPath === undefined
            ? [
                {
                  url: `${route}?unknown_parameter=1`,
                  // A required field missing is named first; a tool with none names the unknown one.
                  parameter: firstRequiredField(tool) ?? "unknown_parameter",
                  in: "query",
                },
              ]
            : // A segment no id, slug or name can be: the path is checked before the query.
              [
                {
                  url: `${filled(route, "x".repeat(100))}?unknown_parameter=1`,
                  parameter: inPath,
                  in: "path",
                },
              ];
        return [route, bad];
      }),
  ),
};

describeWithDatabase("the /api OpenAPI document and request schemas", () => {
  const db = useTestDatabase();
  let app: App;
  let reader: SeededUser;
  /** `METHOD url` of every `/api` route fastify registered (HEAD ones are fastify's own). */
  const apiRoutes: string[] = [];
  let document: {
    openapi: string;
    paths: Record<string, Record<string, { operationId?: string; tags?: string[]; security?: unknown[] }>>;
  };

  const get = (url: string, token?: string) =>
    app.inject({ method: "GET", url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  beforeAll(async () => {
    app = buildApp(testServices(db.sql));
    app.addHook("onRoute", (route) => {
      if (!route.url.startsWith("/api/")) return;
      for (const method of [route.method].flat()) {
        if (method !== "HEAD") apiRoutes.push(`${method} ${route.url}`);
      }
    });
    await app.ready();
    reader = await seedUser(db.sql, "openapi-reader", { scopes: ["read"] });
    const response = await get("/api/openapi.json");
    expect(response.statusCode).toBe(200);
    document = response.json();
  });

  afterAll(async () => {
    await app.close();
  });

  it("serves an OpenAPI 3.1 document without a token, and it validates", async () => {
    expect(document.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents every /api route fastify registered, with its method, and nothing else", () => {
    expect(apiRoutes.length).toBeGreaterThanOrEqual(6);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const registered = apiRoutes.map((route) => route.replace(/:([a-z_]+)/g, "{$1}"));
    expect(documented.sort()).toEqual(registered.sort());
  });

  it("gives every operation a unique operationId and a tag, and bearer security except on itself", () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.values(methods).map((operation) => ({ path, ...operation })),
    );
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(operations.length);
    for (const operation of operations) {
      expect(operation.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.tags?.length).toBe(1);
      expect(operation.security).toEqual(operation.path === "/api/openapi.json" ? [] : undefined);
    }
    expect(document).toMatchObject({
      security: [{ bearer: [] }],
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    });
  });

  it("shares the MCP tools' input fields: search_problems' limit, get_problem's revision", () => {
    const parameters = (path: string) =>
      (document.paths[path]?.get as unknown as { parameters?: Array<Record<string, unknown>> } | undefined)
        ?.parameters ?? [];
    expect(parameters("/api/problems").find((p) => p.name === "limit")).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "integer", minimum: 1, maximum: 200, default: 50 },
      description: "Page size, 1 to 200 (default 50).",
    });
    expect(parameters("/api/problems/{problem}").map((p) => `${p.in} ${p.name}`)).toEqual(
      expect.arrayContaining(["path problem", "query revision", "query working_attempt_id"]),
    );
  });

  it("has bad-input cases for every /api route", () => {
    const routes = apiRoutes.map((route) => route.replace(/^GET /, ""));
    expect(Object.keys(BAD_INPUT).sort()).toEqual(routes.sort());
  });

  it.each(
    Object.values(BAD_INPUT)
      .flat()
      .map((bad) => [bad.url, bad] as const),
  )("answers %s with 400 invalid_input naming the parameter", async (_url, bad) => {
    const response = await get(bad.url, reader.token);
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error).toMatchObject({ code: "invalid_input", field: bad.parameter, parameter: bad.parameter });
    expect(error.in).toBe(bad.in);
    expect(error.message).toContain(`${bad.in} parameter "${bad.parameter}"`);
    expect(error.message).toMatch(/ (must|is invalid|is unknown|is given more than once)/);
  });

  it("asks for a token before it looks at the parameters", async () => {
    for (const bad of Object.values(BAD_INPUT).flat()) {
      const response = await get(bad.url);
      expect(response.statusCode, bad.url).toBe(401);
      expect(response.json().error.code).toBe("unauthorized");
    }
  });

  it("takes working_attempt_id on every read, as the MCP read tools do", async () => {
    const attempt = "att_0000000000";
    for (const url of [
      `/api/problems?working_attempt_id=${attempt}`,
      `/api/verifications/${VRN}?working_attempt_id=${attempt}`,
      `/api/problem-revisions/${PRV}/reference/instance?working_attempt_id=${attempt}`,
      `/api/verifier-implementations/${VFI}/program?working_attempt_id=${attempt}`,
    ]) {
      const response = await get(url, reader.token);
      expect(response.statusCode, url).not.toBe(400);
      expect(response.statusCode, url).toBeLessThan(500);
    }
  });

  it("lets the last of a repeated working_attempt_id count (spec 4.1), on every read", async () => {
    const attempt = "att_0000000000";
    for (const path of [
      "/api/problems",
      `/api/verifications/${VRN}`,
      `/api/problem-revisions/${PRV}/reference/instance`,
      `/api/verifier-implementations/${VFI}/program`,
    ]) {
      const lastGood = await get(
        `${path}?working_attempt_id=nope&working_attempt_id=${attempt}`,
        reader.token,
      );
      expect(lastGood.statusCode, path).not.toBe(400);
      expect(lastGood.statusCode, path).toBeLessThan(500);
      const lastBad = await get(
        `${path}?working_attempt_id=${attempt}&working_attempt_id=nope`,
        reader.token,
      );
      expect(lastBad.statusCode, path).toBe(400);
      expect(lastBad.json().error.message, path).toContain("working_attempt_id");
    }
  });
});
