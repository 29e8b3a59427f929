import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type App, buildApp } from "../../src/edges/cli/build-app.ts";
import { eventsCapability } from "../../src/edges/mcp/event-methods.ts";
import { useSolvingFixture } from "../attempts/support/solving-fixture.ts";
import { modernRpc } from "../edges/mcp/support/json-rpc.ts";
import { describeWithDatabase } from "../support/test-database.ts";
import { HOSTILE_NUMBERS, hostileValue, plausibleString } from "./support/hostile-values.ts";

/**
 * The event methods and the `/api` routes with arbitrary and hostile input (NUL, lone surrogates,
 * integers past bigint, any JSON): whatever arrives, the answer is a result or a catalogue error,
 * never `internal` (-32603 on an event method, a 5xx on a route). The tools' own property test is
 * mcp-tools-property.test.ts.
 */

/** The event methods the server declares (spec 6.1). */
const EVENT_METHODS = eventsCapability.methods;

/** Params of every event method's shape, any field of any value, hostile ones often. */
const eventParams = fc.record(
  {
    cursor: fc.oneof(plausibleString, fc.constantFrom(...HOSTILE_NUMBERS)),
    kinds: fc.oneof(fc.array(plausibleString, { maxLength: 3 }), hostileValue),
    limit: fc.oneof(fc.constantFrom(...HOSTILE_NUMBERS), hostileValue),
    // Never a live subscription's id: events/stream on one would hold the request open.
    subscription_id: plausibleString,
    include_ended: hostileValue,
    delivery: fc.oneof(
      fc.record({ type: fc.constant("webhook"), url: fc.oneof(plausibleString, hostileValue) }),
      fc.record({ type: fc.constant("stream") }),
      hostileValue,
    ),
  },
  { requiredKeys: [] },
);

/** A path segment for a hostile value: percent-encoded, a lone surrogate as the bytes no UTF-8 decodes. */
function segment(value: string): string {
  try {
    return encodeURIComponent(value) || "x";
  } catch {
    return "%ED%A0%80";
  }
}

describeWithDatabase("evil/ every event method and every /api route with arbitrary input", () => {
  const f = useSolvingFixture();
  let app: App;
  /** Every /api route fastify registered, with the query parameters its OpenAPI entry names. */
  const routes: { method: string; url: string; query: string[] }[] = [];

  beforeAll(async () => {
    app = buildApp(f.services);
    const registered: { method: string; url: string }[] = [];
    app.addHook("onRoute", (route) => {
      if (!route.url.startsWith("/api/")) return;
      for (const method of [route.method].flat())
        if (method !== "HEAD") registered.push({ method, url: route.url });
    });
    await app.ready();
    const document = (await app.inject({ method: "GET", url: "/api/openapi.json" })).json() as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    for (const { method, url } of registered) {
      const documented = document.paths[url.replace(/:(\w+)/g, "{$1}")]?.[method.toLowerCase()];
      const query = (documented?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      routes.push({ method, url, query: [...query, "cursor", "limit", "revision"] });
    }
    expect(routes.length).toBeGreaterThanOrEqual(10);
  });
  afterAll(() => app?.close());

  it("answers every event method with a result or -32602 and a catalogue error, never -32603 (property)", async () => {
    for (const method of EVENT_METHODS) {
      await fc.assert(
        fc.asyncProperty(eventParams, async (params) => {
          const answer = await modernRpc(f.url, f.solver.token, method, params);
          expect(answer.status, `${method} ${JSON.stringify(params)}`).toBeLessThan(500);
          if (answer.body.error) {
            expect(answer.body.error.code, `${method}: ${answer.body.error.message}`).not.toBe(-32603);
            expect(answer.body.error.data?.error, `${method}: ${answer.body.error.message}`).toMatchObject({
              code: expect.any(String),
            });
          }
        }),
        { numRuns: Number(process.env.PROP_RUNS ?? 25) },
      );
    }
  }, 240_000);

  it("answers every /api route with a result or a 4xx catalogue error, never internal or a 5xx (property)", async () => {
    for (const route of routes) {
      const request = fc.record({
        path: fc.array(plausibleString, { minLength: 4, maxLength: 4 }),
        query: fc.dictionary(fc.constantFrom(...route.query), plausibleString, { maxKeys: 3 }),
        body: fc.oneof(fc.dictionary(plausibleString, hostileValue, { maxKeys: 4 }), hostileValue),
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ path, query, body }) => {
          let i = 0;
          const url = route.url.replace(/:\w+/g, () => segment(path[i++ % path.length]!));
          const search = Object.entries(query)
            .map(([name, value]) => `${name}=${segment(value)}`)
            .join("&");
          const response = await app.inject({
            method: route.method as "GET",
            url: search ? `${url}?${search}` : url,
            headers: { authorization: `Bearer ${f.solver.token}`, accept: "application/json" },
            ...(route.method !== "GET" && {
              payload: JSON.stringify(body),
              headers: {
                authorization: `Bearer ${f.solver.token}`,
                accept: "application/json",
                "content-type": "application/json",
              },
            }),
          });
          const what = `${route.method} ${url}?${search} -> ${response.statusCode} ${response.body.slice(0, 300)}`;
          expect(response.statusCode, what).toBeLessThan(500);
          if (
            response.statusCode >= 400 &&
            response.headers["content-type"]?.toString().startsWith("application/json")
          ) {
            expect((response.json() as { error?: { code?: string } }).error?.code, what).not.toBe("internal");
          }
        }),
        { numRuns: Number(process.env.PROP_RUNS ?? 12) },
      );
    }
  }, 240_000);
});
