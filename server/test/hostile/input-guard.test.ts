import { expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/edges/http/request-guards.ts";
import { call, refuse, startOn, useSolvingFixture } from "../attempts/support/solving-fixture.ts";
import { modernRpc } from "../edges/mcp/support/json-rpc.ts";
import { describeWithDatabase } from "../support/test-database.ts";

/**
 * The hostile suite of the input guard (issue 14, item 6): every string a caller sends is refused
 * with `invalid_input` naming the field when it holds NUL or a lone surrogate, integers past their
 * column are refused, bodies nested too deep are refused before any parser walks them, and a body
 * over the limit answers 413 `too_large`. None of them answers `internal` or a 5xx, and none
 * changes anything stored.
 */

const NUL = "a\u0000b";

async function errorOf(response: Response): Promise<Record<string, unknown>> {
  return ((await response.json()) as { error: Record<string, unknown> }).error;
}
const LONE_SURROGATE = "a\ud800b";

describeWithDatabase("evil/ input fixtures", () => {
  const f = useSolvingFixture();

  const refusedAt = (field: string) => ({ code: "invalid_input", field });

  /** POSTs a raw JSON-RPC body to /mcp as the solver. */
  async function postMcp(body: string) {
    return await fetch(`${f.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${f.solver.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body,
    });
  }

  it("evil/nul-in-add-note: refused naming body_md, nothing stored", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    expect(await refuse(f.as(f.solver), "add_note", { attempt_id: attempt, body_md: NUL })).toMatchObject(
      refusedAt("body_md"),
    );
    const read = await call<{ attempt: { notes_count: number } }>(f.as(f.solver), "get_attempt", {
      attempt_id: attempt,
    });
    expect(read.attempt.notes_count).toBe(0);
  });

  it("evil/lone-surrogate-in-note: refused, never stored as U+FFFD", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    expect(
      await refuse(f.as(f.solver), "add_note", { attempt_id: attempt, body_md: LONE_SURROGATE }),
    ).toMatchObject(refusedAt("body_md"));
  });

  it("evil/nul-in-end-attempt: refused and the attempt stays active", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    expect(
      await refuse(f.as(f.solver), "end_attempt", {
        attempt_id: attempt,
        outcome: "abandoned",
        note_md: NUL,
      }),
    ).toMatchObject(refusedAt("note_md"));
    const read = await call<{ attempt: { status: string } }>(f.as(f.solver), "get_attempt", {
      attempt_id: attempt,
    });
    expect(read.attempt.status).toBe("active");
  });

  it("evil/nul-in-reads: search_notes, get_campaign, pick_problem, pick_review and search_problems refuse it", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["search_notes", { query: NUL }, "query"],
      ["get_campaign", { campaign: NUL }, "campaign"],
      ["pick_problem", { campaign: NUL }, "campaign"],
      ["pick_review", { campaign: NUL }, "campaign"],
      ["search_problems", { query: NUL }, "query"],
      ["search_problems", { query: LONE_SURROGATE }, "query"],
    ];
    for (const [tool, args, field] of cases) {
      const error = await refuse(f.as(f.solver), tool, args);
      expect({ tool, ...error }).toMatchObject({ tool, ...refusedAt(field) });
    }
  });

  it("evil/nul-in-field-name: an argument whose name holds NUL is refused, naming it", async () => {
    const error = await refuse(f.as(f.solver), "search_problems", { [NUL]: "x" });
    expect(error).toMatchObject({ code: "invalid_input", field: NUL });
  });

  it("evil/lone-surrogate-in-artifact-name: refused naming filename", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    expect(
      await refuse(f.as(f.solver), "upload_artifact", {
        attempt_id: attempt,
        filename: `answer${LONE_SURROGATE}.txt`,
        content_text: "42",
      }),
    ).toMatchObject(refusedAt("filename"));
  });

  it("evil/nul-in-api-query: GET /api/problems?q=a%00b answers 400 invalid_input naming q", async () => {
    const response = await fetch(`${f.url}/api/problems?q=a%00b`, {
      headers: { authorization: `Bearer ${f.solver.token}` },
    });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject(refusedAt("q"));
    const surrogate = await fetch(`${f.url}/api/problems?q=a%ED%A0%80b`, {
      headers: { authorization: `Bearer ${f.solver.token}` },
    });
    expect(surrogate.status).toBeLessThan(500);
  });

  it("evil/int4-revision: revision 2147483648 is refused naming revision, in get_problem and start_attempt", async () => {
    for (const tool of ["get_problem", "start_attempt"]) {
      const error = await refuse(f.as(f.solver), tool, { problem: "free", revision: 2_147_483_648 });
      expect({ tool, ...error }).toMatchObject({ tool, ...refusedAt("revision") });
    }
    const response = await fetch(`${f.url}/api/problems/free?revision=2147483648`, {
      headers: { authorization: `Bearer ${f.solver.token}` },
    });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: "invalid_input" });
  });

  it("evil/deep-mcp-body: a body nested 5,000 deep answers 400 invalid_input, not 500", async () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"x":${deep}}}}`;
    const response = await postMcp(body);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: "invalid_input", field: "body" });
    // At the ceiling the body is parsed and reaches the tool, which names the unknown field.
    const atCeiling = `${"[".repeat(MAX_JSON_DEPTH - 4)}${"]".repeat(MAX_JSON_DEPTH - 4)}`;
    const fine = await postMcp(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"x":${atCeiling}}}}`,
    );
    expect(fine.status).toBeLessThan(500);
  });

  it("evil/huge-mcp-body: a body over the limit answers 413 too_large, as docs/errors.md says", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"x":"${"a".repeat(2 * 1024 * 1024)}"}}}`;
    const response = await postMcp(body);
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toMatchObject({ code: "too_large" });
  });

  it("evil/nul-in-json-body: a JSON body with NUL in a nested field is refused naming the field", async () => {
    const response = await fetch(`${f.url}/admin/sandbox-runtimes`, {
      method: "POST",
      headers: { authorization: `Bearer ${f.admin.token}`, "content-type": "application/json" },
      body: JSON.stringify({ image_ref: "ok", local_image: "ok", extra: { list: ["fine", NUL] } }),
    });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject(refusedAt("extra.list.1"));
  });
  it("evil/proto-key-body: a JSON body with a __proto__ key answers 400 invalid_input saying so", async () => {
    const response = await postMcp(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"__proto__":{}}}}',
    );
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error).toMatchObject({ code: "invalid_input", field: "body" });
    expect(error.message).toContain("__proto__");
  });
  /** An event method's refusal: -32602 with the catalogue body in data.error. */
  async function eventRefusal(method: string, params: Record<string, unknown>) {
    const answer = await modernRpc(f.url, f.solver.token, method, params);
    expect(answer.body.error, `${method} ${JSON.stringify(answer.body)}`).toMatchObject({ code: -32602 });
    return answer.body.error!.data!.error;
  }

  it("evil/cursor-past-bigint: a cursor above 2^63-1 is invalid_input naming cursor on every sequence read", async () => {
    const past = "9223372036854775808";
    const subscribed = await modernRpc(f.url, f.solver.token, "events/subscribe", {
      delivery: { type: "stream" },
    });
    const subscriptionId = (subscribed.body.result as { subscription: { subscription_id: string } })
      .subscription.subscription_id;
    expect(subscriptionId).toMatch(/^esb_/);
    expect(await refuse(f.as(f.solver), "list_criteria_changes", { cursor: past })).toMatchObject(
      refusedAt("cursor"),
    );
    expect(await eventRefusal("events/list", { cursor: past })).toMatchObject(refusedAt("cursor"));
    for (const method of ["events/deliveries", "events/stream"]) {
      expect(await eventRefusal(method, { subscription_id: subscriptionId, cursor: past })).toMatchObject(
        refusedAt("cursor"),
      );
    }
    // The largest bigint is a position like any other.
    expect(
      (await modernRpc(f.url, f.solver.token, "events/list", { cursor: "9223372036854775807" })).body,
    ).toMatchObject({ result: { events: [] } });
  });

  it("evil/nul-in-webhook-url: NUL or a lone surrogate in events/subscribe's URL is refused naming the field, nothing stored", async () => {
    for (const url of [`https://hooks.example.com/${NUL}`, `https://hooks.example.com/${LONE_SURROGATE}`]) {
      expect(await eventRefusal("events/subscribe", { delivery: { type: "webhook", url } })).toMatchObject(
        refusedAt("delivery.url"),
      );
    }
    const listed = await modernRpc(f.url, f.solver.token, "events/subscriptions", {});
    const subscriptions = (listed.body.result as { subscriptions: { delivery: { type: string } }[] })
      .subscriptions;
    expect(subscriptions.filter((s) => s.delivery.type === "webhook")).toEqual([]);
  });

  it("evil/read-without-uri: resources/read without a uri answers -32602 invalid_input naming uri, no schema dump", async () => {
    for (const params of [{}, { uri: 7 }, { uri: "" }]) {
      const answer = await modernRpc(f.url, f.solver.token, "resources/read", params);
      expect(answer.body.error, JSON.stringify(params)).toMatchObject({
        code: -32602,
        data: { error: refusedAt("uri") },
      });
      expect(answer.body.error!.message).not.toMatch(/invalid_type|expected/);
    }
  });

  it("evil/bidi-filename: upload_artifact refuses a file name with a bidirectional formatting character", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    for (const control of ["\u202e", "\u2066", "\u200f", "\u061c"]) {
      expect(
        await refuse(f.as(f.solver), "upload_artifact", {
          attempt_id: attempt,
          filename: `invoice${control}txt.exe`,
          content_text: "x",
        }),
      ).toMatchObject(refusedAt("filename"));
    }
  });
});
