import { afterAll, beforeAll, expect, it } from "vitest";
import { saveWorkDraft } from "../../src/drafts/save-work-draft.ts";
import { call, connect, type DraftUser, draftUser, uniqueCampaignFiles } from "../drafts/draft-harness.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { scriptRuntimesBound, testServices } from "../support/test-services.ts";

describeWithDatabase("the work audit page", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let author: DraftUser;
  let other: DraftUser;
  let draftId: string;

  const get = (path: string, user: DraftUser, accept = "text/html") =>
    fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${user.token}`, accept } });

  beforeAll(async () => {
    const services = testServices(db.sql, { sandbox: scriptRuntimesBound() });
    app = await startApp(services);
    author = await draftUser(db.sql, { capabilities: ["author"] });
    other = await draftUser(db.sql);
    const client = await connect(app.url, author);
    try {
      const saved = await call(client, "save_work_draft", {
        files: uniqueCampaignFiles("page"),
        title: "<b>x</b>",
      });
      draftId = (saved.draft as { id: string }).id;
      await call(client, "prepare_work_draft", { draft_id: draftId, expected_version: "1" });
      // Three more saves, so the history spans pages of two.
      for (const version of ["1", "2", "3"]) {
        await saveWorkDraft(
          services,
          { userId: author.id, isAdministrator: false },
          {
            draft_id: draftId,
            expected_version: version,
            title: `v${Number(version) + 1}`,
          },
        );
      }
    } finally {
      await client.close();
    }
  });
  afterAll(() => app?.close());

  it("lists each step with its actor, upload, plan hash and revisions created, newest first", async () => {
    const response = await get(`/work/audit?draft_id=${draftId}`, author);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain("<h1>Work history</h1>");
    const actions = [...page.matchAll(/data-testid="action"><code>([a-z_]+)<\/code>/g)].map((m) => m[1]);
    expect(actions.slice(0, 3)).toEqual(["save_draft", "save_draft", "save_draft"]);
    expect(actions).toEqual(expect.arrayContaining(["prepare_draft", "create"]));
    expect(actions.at(-1)).toBe("save_draft");
    expect(page).toContain(`data-testid="actor">${author.handle}<`);
    expect(page).toMatch(/<code>prv_[0-9a-z]+<\/code> \(1\)/);
    expect(page).toMatch(/<code>aup_[0-9a-z]+<\/code>/);
  });

  it("pages with a cursor through the Older entries link, and answers JSON to a program", async () => {
    const seen: string[] = [];
    let path: string | null = `/work/audit?draft_id=${draftId}&limit=2`;
    while (path) {
      const page = await (await get(path, author)).text();
      seen.push(...[...page.matchAll(/data-testid="action"><code>([a-z_]+)/g)].map((m) => m[1]!));
      const older = /href="([^"]+)" data-testid="older"/.exec(page)?.[1]?.replaceAll("&amp;", "&");
      path = older ?? null;
    }
    const json = (await (
      await get(`/work/audit?draft_id=${draftId}`, author, "application/json")
    ).json()) as {
      entries: Array<{ action: string }>;
      next_cursor: string | null;
    };
    expect(seen).toEqual(json.entries.map((e) => e.action));
    expect(json.next_cursor).toBeNull();
  });

  it("shows another user's draft history to no one but its owner and administrators", async () => {
    expect((await get(`/work/audit?draft_id=${draftId}`, other, "application/json")).status).toBe(404);
    const mine = (await (await get("/work/audit", other, "application/json")).json()) as {
      entries: unknown[];
    };
    expect(mine.entries).toEqual([]);
    expect((await get("/work/audit?campaign=a&problem=b", author)).status).toBe(400);
    expect((await get("/work/audit?cursor=bogus", author, "application/json")).status).toBe(400);
  });
});
