import { afterAll, beforeAll, expect, it } from "vitest";
import { issueToken } from "../../src/users/issue-token.ts";
import type { TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { scriptRuntimesBound, testServices } from "../support/test-services.ts";
import { call, connect, type DraftUser, draftUser, uniqueCampaignFiles } from "./draft-harness.ts";

/** Who calls: the draft's owner, another user, an administrator, and the owner through a read-only token. */
type Caller = "owner" | "other" | "admin" | "read_only";

/** What a caller gets: a result, or the error code. */
type Outcome = "ok" | "not_found" | "forbidden";

interface Row {
  tool: string;
  /** The arguments, given a fresh draft of the owner (and its pending request, for reviews). */
  args: (draft: { id: string; request?: string }) => Record<string, unknown>;
  /** Whether the row needs a pending publication request of the draft. */
  withRequest?: boolean;
  expect: Record<Caller, Outcome>;
}

const ROWS: Row[] = [
  {
    tool: "save_work_draft",
    args: ({ id }) => ({ draft_id: id, expected_version: "1", title: "edited" }),
    expect: { owner: "ok", other: "not_found", admin: "ok", read_only: "forbidden" },
  },
  {
    tool: "prepare_work_draft",
    args: ({ id }) => ({ draft_id: id, expected_version: "1" }),
    expect: { owner: "ok", other: "not_found", admin: "ok", read_only: "forbidden" },
  },
  {
    tool: "get_work_draft",
    args: ({ id }) => ({ draft_id: id }),
    expect: { owner: "ok", other: "not_found", admin: "ok", read_only: "ok" },
  },
  {
    tool: "read_work_draft_file",
    args: ({ id }) => ({ draft_id: id, path: "campaign.json" }),
    expect: { owner: "ok", other: "not_found", admin: "ok", read_only: "ok" },
  },
  {
    tool: "publish_work_draft",
    args: ({ id }) => ({ draft_id: id, expected_version: "1", visibility: "unlisted" }),
    expect: { owner: "ok", other: "not_found", admin: "ok", read_only: "forbidden" },
  },
  {
    tool: "request_work_publication",
    args: ({ id }) => ({ draft_id: id, expected_version: "1" }),
    expect: { owner: "ok", other: "not_found", admin: "ok", read_only: "forbidden" },
  },
  {
    tool: "review_work_publication",
    withRequest: true,
    args: ({ request }) => ({ request_id: request, decision: "approve", reason_md: "fine" }),
    expect: { owner: "forbidden", other: "forbidden", admin: "ok", read_only: "forbidden" },
  },
  {
    tool: "list_publication_requests",
    args: () => ({}),
    expect: { owner: "forbidden", other: "forbidden", admin: "ok", read_only: "forbidden" },
  },
  {
    tool: "list_work_drafts",
    args: () => ({}),
    expect: { owner: "ok", other: "ok", admin: "ok", read_only: "ok" },
  },
  {
    tool: "get_authoring_toolkit",
    args: () => ({}),
    expect: { owner: "ok", other: "ok", admin: "ok", read_only: "ok" },
  },
  {
    tool: "list_work_audit",
    args: ({ id }) => ({ draft_id: id }),
    expect: { owner: "ok", other: "not_found", admin: "ok", read_only: "ok" },
  },
];

describeWithDatabase("the authorization matrix of the draft and publication tools", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let owner: DraftUser;
  const clients = {} as Record<Caller, TestClient>;
  let drafts = 0;

  beforeAll(async () => {
    app = await startApp(testServices(db.sql, { sandbox: scriptRuntimesBound() }));
    owner = await draftUser(db.sql, { capabilities: ["author"] });
    const readOnly = await issueToken(db.sql, owner.handle, ["read"]);
    clients.owner = await connect(app.url, owner);
    clients.other = await connect(app.url, await draftUser(db.sql, { capabilities: ["author"] }));
    clients.admin = await connect(app.url, await draftUser(db.sql, { admin: true }));
    clients.read_only = await connect(app.url, { ...owner, token: readOnly.token });
  });
  afterAll(async () => {
    await Promise.all(Object.values(clients).map((c) => c.close()));
    await app?.close();
  });

  const cases = ROWS.flatMap((row) =>
    (Object.keys(row.expect) as Caller[]).map((caller) => ({
      tool: row.tool,
      caller,
      outcome: row.expect[caller],
      row,
    })),
  );

  it.each(cases)("$tool as $caller: $outcome", async ({ row, caller, outcome }) => {
    drafts += 1;
    const saved = await call(clients.owner, "save_work_draft", { files: uniqueCampaignFiles(`m${drafts}`) });
    const draft: { id: string; request?: string } = { id: (saved.draft as { id: string }).id };
    if (row.withRequest) {
      const requested = await call(clients.owner, "request_work_publication", {
        draft_id: draft.id,
        expected_version: "1",
        visibility: "unlisted",
      });
      draft.request = (requested.request as { id: string }).id;
    }
    const result = await call(clients[caller], row.tool, row.args(draft));
    if (outcome === "ok") {
      expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    } else {
      expect(result.error?.code, JSON.stringify(result.error)).toBe(outcome);
    }
  });

  it("lists a user's own drafts only; an administrator names the owner", async () => {
    const saved = await call(clients.owner, "save_work_draft", { files: uniqueCampaignFiles("list") });
    const id = (saved.draft as { id: string }).id;
    const ids = async (caller: Caller, args: Record<string, unknown> = {}) =>
      ((await call(clients[caller], "list_work_drafts", args)).drafts as Array<{ id: string }>).map(
        (d) => d.id,
      );
    expect(await ids("owner")).toContain(id);
    expect(await ids("read_only")).toContain(id);
    expect(await ids("other")).not.toContain(id);
    expect(await ids("other", { owner_user_id: owner.id })).not.toContain(id);
    expect(await ids("admin", { owner_user_id: owner.id })).toContain(id);
  });
});

describeWithDatabase("who may publish a draft at which visibility", () => {
  const db = useTestDatabase();
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(testServices(db.sql, { sandbox: scriptRuntimesBound() }));
  });
  afterAll(() => app?.close());

  it.each([
    { who: "an author", options: { capabilities: ["author" as const] }, unlisted: "ok", listed: "forbidden" },
    { who: "a trusted author", options: { trusted: true }, unlisted: "ok", listed: "ok" },
    { who: "a contributor without author", options: {}, unlisted: "forbidden", listed: "forbidden" },
  ])("$who: unlisted $unlisted, listed $listed", async ({ who, options, unlisted, listed }) => {
    const user = await draftUser(db.sql, options);
    const client = await connect(app.url, user);
    try {
      for (const [visibility, outcome] of [
        ["unlisted", unlisted],
        ["listed", listed],
      ] as const) {
        const saved = await call(client, "save_work_draft", {
          files: uniqueCampaignFiles(`${who.replaceAll(" ", "")}${visibility}`.slice(0, 20).toLowerCase()),
        });
        const result = await call(client, "publish_work_draft", {
          draft_id: (saved.draft as { id: string }).id,
          expected_version: "1",
          visibility,
        });
        if (outcome === "ok") expect(result.draft).toMatchObject({ status: "published", visibility });
        else expect(result.error?.code).toBe("forbidden");
      }
    } finally {
      await client.close();
    }
  });
});
