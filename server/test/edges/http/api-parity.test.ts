import { expect, it } from "vitest";
import { apiRouteOf } from "../../../src/edges/mcp/tool-routes.ts";
import { tools } from "../../../src/edges/mcp/tools/tools.ts";
import { useSolvingFixture } from "../../attempts/support/solving-fixture.ts";
import { describeWithDatabase } from "../../support/test-database.ts";
import { envelopeOf } from "../mcp/support/mcp-clients.ts";

/** The wire form of a refusal. */
interface ErrorBody {
  error: { code: string; field?: string; scope?: string };
}

/** Issue 36: every read tool has its `GET /api` twin, with the same input, result and refusals. */
describeWithDatabase("/api parity with the read tools", () => {
  const f = useSolvingFixture();
  const readTools = tools.filter((tool) => tool.kind === "read");
  const get = (path: string, token: string) =>
    fetch(`${f.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it("has a documented GET route for every read tool", async () => {
    const document = (await (await fetch(`${f.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const missing = readTools
      .map((tool) => ({ tool: tool.name, path: apiRouteOf(tool).replace(/:([a-z_]+)/g, "{$1}") }))
      .filter(({ path }) => document.paths[path]?.get === undefined);
    expect(missing, "read tools without a GET /api route in the OpenAPI document").toEqual([]);
    // REST-style: the collection or the record, never a generic tools path.
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/api/tools"))).toEqual([]);
    expect(readTools.length).toBeGreaterThan(30);
  });

  it("answers a generated route with the tool's own result and refusals", async () => {
    const client = f.as(f.solver);
    const started = envelopeOf(await client.callTool("start_attempt", { problem: "free" }));
    const attemptId = (started.attempt as { id: string }).id;
    await client.callTool("add_note", { attempt_id: attemptId, body_md: "A first idea." });

    const overMcp = envelopeOf(await client.callTool("get_attempt", { attempt_id: attemptId }));
    const overHttp = await get(`/api/attempts/${attemptId}`, f.solver.token);
    expect(overHttp.status).toBe(200);
    expect(await overHttp.json()).toEqual(overMcp);

    const notesOverMcp = envelopeOf(await client.callTool("search_notes", { query: "idea" }));
    const notesOverHttp = await get("/api/notes?query=idea", f.solver.token);
    expect(await notesOverHttp.json()).toEqual(notesOverMcp);

    // A path segment and a query parameter together; an object-valued field as JSON.
    const listed = envelopeOf(await client.callTool("list_attempts", { problem: "free", limit: 5 }));
    expect(await (await get("/api/problems/free/attempts?limit=5", f.solver.token)).json()).toEqual(listed);
    const artifacts = envelopeOf(await client.callTool("list_artifacts", { attempt_id: attemptId }));
    expect(await (await get(`/api/attempts/${attemptId}/artifacts`, f.solver.token)).json()).toEqual(
      artifacts,
    );
    const work = envelopeOf(await client.callTool("get_work_management", { work: { problem: "free" } }));
    const workOverHttp = await get(
      `/api/work-management?work=${encodeURIComponent(JSON.stringify({ problem: "free" }))}`,
      f.solver.token,
    );
    expect(await workOverHttp.json()).toEqual(work);

    // The same refusal over both doors: another user's Attempt is not_yours (403).
    const refusedMcp = envelopeOf(await f.as(f.rival).callTool("get_attempt", { attempt_id: attemptId }));
    const refusedHttp = await get(`/api/attempts/${attemptId}`, f.rival.token);
    expect(refusedHttp.status).toBe(403);
    expect(((await refusedHttp.json()) as ErrorBody).error.code).toBe(
      (refusedMcp.error as { code: string }).code,
    );

    // Bad input names the parameter; no token is 401 before anything is read.
    const bad = await get("/api/attempts/nope", f.solver.token);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error).toMatchObject({
      code: "invalid_input",
      field: "attempt_id",
    });
    expect((await fetch(`${f.url}/api/attempts/${attemptId}`)).status).toBe(401);
  });

  it("checks the tool's own scope: a read tool that needs contribute refuses a read token", async () => {
    const response = await get("/api/publication-requests", f.reader.token);
    expect(response.status).toBe(403);
    expect(((await response.json()) as ErrorBody).error).toMatchObject({
      code: "forbidden",
      scope: "contribute",
    });
  });
});
