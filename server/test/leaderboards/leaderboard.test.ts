import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { browserMissing, launchBrowser } from "../../../test/support/browser.ts";
import { sequenceAttestations } from "../../src/attestations/sequence-attestations.ts";
import { expectAccessible, screenshot } from "../edges/http/site/site-support.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { sealing } from "../sealing/support/sealed-fixture.ts";
import {
  contractDocument,
  type SeededUser,
  seedContract,
  seedFinishedRun,
  seedProblem,
  seedUser,
} from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

const hasBrowser = browserMissing() === null;

/** A Contract whose result is a score in `unit`, ranked in `direction` (or by the benchmark when absent). */
const scoredContract = (direction?: "higher_is_better" | "lower_is_better") => ({
  ...contractDocument(),
  result_kind: "score",
  score: { unit: "points", description: "points scored", ...(direction && { direction }) },
});

/**
 * Leaderboards over MCP (get_leaderboard), `/api` and the page: each participant's best verified,
 * unrevoked score, ranked in the score's direction, the baseline drawn among them, nothing shown
 * while a sealed evaluation withholds scores, and a refusal for a Problem that ranks nothing.
 */
describeWithDatabase("leaderboards", () => {
  const db = useTestDatabase();
  let now = new Date("2030-01-01T00:00:00.000Z");
  let app: RunningApp;
  let owner: SeededUser;
  let reader: SeededUser;
  let client: TestClient;
  let browser: Browser | undefined;
  const users: Record<string, SeededUser> = {};

  beforeAll(async () => {
    const services = testServices(db.sql, { clock: () => now });
    owner = await seedUser(db.sql, "owner", { capabilities: ["author"] });
    reader = await seedUser(db.sql, "reader");
    for (const handle of ["alice", "bob", "carol", "dave"]) users[handle] = await seedUser(db.sql, handle);
    const at = (minutes: number) => new Date(Date.parse("2029-12-31T00:00:00.000Z") + minutes * 60_000);

    // 1. Higher is better (the Contract says so); alice has two runs, dave's best is revoked.
    const higher = await seedContract(db.sql, owner.id, scoredContract("higher_is_better"));
    const points = await seedProblem(services, {
      owner: owner.id,
      slug: "most-points",
      title: "Most points",
      visibility: "listed",
      revision: { verifierContractId: higher },
    });
    const run = (
      user: string,
      result: "verified" | "refuted",
      score: number | null,
      minute: number,
      revoked = false,
    ) =>
      seedFinishedRun(db.sql, {
        problemId: points.problemId,
        revisionId: points.revisionId,
        contractId: higher,
        userId: users[user]!.id,
        result,
        score,
        finishedAt: at(minute),
        revokedBy: revoked ? owner.id : undefined,
      });
    await run("alice", "verified", 10, 1);
    await run("alice", "verified", 12, 2);
    await run("bob", "verified", 30, 3);
    await run("carol", "verified", 20, 4);
    await run("carol", "refuted", null, 5);
    await run("dave", "verified", 99, 6, true);

    // 2. A BENCHMARK whose benchmark says lower is better (its Contract gives no direction), with a baseline.
    const bare = await seedContract(db.sql, owner.id, scoredContract());
    const fastest = await seedProblem(services, {
      owner: owner.id,
      slug: "fastest",
      title: "Fastest",
      structure: "BENCHMARK",
      visibility: "listed",
      revision: {
        verifierContractId: bare,
        benchmark: { metric_name: "wall time", direction: "minimize", unit: "ms", baseline: 25 },
      },
    });
    for (const [user, score, minute] of [
      ["alice", 40, 1],
      ["bob", 20, 2],
      ["carol", 30, 3],
    ] as const) {
      await seedFinishedRun(db.sql, {
        problemId: fastest.problemId,
        revisionId: fastest.revisionId,
        contractId: bare,
        userId: users[user]!.id,
        result: "verified",
        score,
        finishedAt: at(minute),
      });
    }

    // 3. A sealed evaluation releasing scores only at the end.
    const sealedWork = await seedProblem(services, {
      owner: owner.id,
      slug: "sealed-points",
      title: "Sealed points",
      visibility: "listed",
      revision: {
        verifierContractId: higher,
        sealing: sealing({
          mode: "final_only",
          releaseAt: "2030-02-01T00:00:00.000Z",
          sealedUntil: "2030-03-01T00:00:00.000Z",
        }),
      },
    });
    await seedFinishedRun(db.sql, {
      problemId: sealedWork.problemId,
      revisionId: sealedWork.revisionId,
      contractId: higher,
      userId: users.alice!.id,
      result: "verified",
      score: 7,
      finishedAt: at(1),
    });

    // 4. A pass/fail SOLVE problem: nothing to rank.
    const passFail = await seedContract(db.sql, owner.id, contractDocument());
    await seedProblem(services, {
      owner: owner.id,
      slug: "yes-or-no",
      visibility: "listed",
      revision: { verifierContractId: passFail },
    });

    app = await startApp(services);
    client = await clientLines[0].connect(app.url, reader.token);
    if (hasBrowser) browser = await launchBrowser();
  });
  afterAll(async () => {
    await client?.close();
    await browser?.close();
    await app?.close();
  });

  // biome-ignore lint/suspicious/noExplicitAny: the envelope is read field by field
  const leaderboard = async (args: Record<string, unknown>): Promise<any> => {
    const result = await client.callTool("get_leaderboard", args);
    return { isError: result.isError === true, body: envelopeOf(result) };
  };
  const ranking = (board: { entries: { rank: number; participant: { handle: string }; score: number }[] }) =>
    board.entries.map((e) => [e.rank, e.participant.handle, e.score]);

  it("1. ranks each participant's best verified score, higher first, and drops a revoked run and a refuted one", async () => {
    const { isError, body } = await leaderboard({ problem: "most-points" });
    expect(isError).toBe(false);
    expect(ranking(body)).toEqual([
      [1, "bob", 30],
      [2, "carol", 20],
      [3, "alice", 12],
    ]);
    expect(body).toMatchObject({
      metric: { name: "points scored", unit: "points", direction: "higher_is_better" },
      baseline: null,
      withheld: null,
    });
  });

  it("2. ranks lower first when the benchmark minimizes, with its metric and baseline; /api serves the same", async () => {
    const { body } = await leaderboard({ problem: "fastest" });
    expect(ranking(body)).toEqual([
      [1, "bob", 20],
      [2, "carol", 30],
      [3, "alice", 40],
    ]);
    expect(body.metric).toEqual({ name: "wall time", unit: "ms", direction: "lower_is_better" });
    expect(body.baseline).toBe(25);
    const api = await fetch(`${app.url}/api/problems/fastest/leaderboard`, {
      headers: { authorization: `Bearer ${reader.token}` },
    });
    expect(api.status).toBe(200);
    expect(await api.json()).toEqual(body);
  });

  it("3. shows nothing while final_only withholds scores, except to the owner; then everything once released", async () => {
    const { body } = await leaderboard({ problem: "sealed-points" });
    expect(body.entries).toEqual([]);
    expect(body.withheld).toEqual({ because: "score_release", until: "2030-02-01T00:00:00.000Z" });
    const asOwner = await fetch(`${app.url}/api/problems/sealed-points/leaderboard`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(ranking((await asOwner.json()) as Parameters<typeof ranking>[0])).toEqual([[1, "alice", 7]]);
    now = new Date("2030-02-01T00:00:00.000Z");
    try {
      const released = await leaderboard({ problem: "sealed-points" });
      expect(released.body.withheld).toBeNull();
      expect(ranking(released.body)).toEqual([[1, "alice", 7]]);
    } finally {
      now = new Date("2030-01-01T00:00:00.000Z");
    }
  });

  it("4. refuses a problem that ranks nothing with leaderboard_not_applicable, and an unknown one with not_found", async () => {
    const refused = await leaderboard({ problem: "yes-or-no" });
    expect(refused.isError).toBe(true);
    expect(refused.body.error.code).toBe("leaderboard_not_applicable");
    const api = await fetch(`${app.url}/api/problems/yes-or-no/leaderboard`, {
      headers: { authorization: `Bearer ${reader.token}` },
    });
    expect(api.status).toBe(409);
    expect((await leaderboard({ problem: "no-such" })).body.error.code).toBe("not_found");
  });

  it("6. a row links its run only for a reader who can open it; a run page it cannot open is the site's HTML 404 for a browser, JSON for a program", async () => {
    const page = async (token: string | null) => {
      const response = await fetch(`${app.url}/problems/fastest/leaderboard`, {
        headers: { accept: "text/html", ...(token && { authorization: `Bearer ${token}` }) },
      });
      const text = await response.text();
      const rows = [...text.matchAll(/<tr data-participant="(\w+)"[^>]*>(.*?)<\/tr>/g)];
      return Object.fromEntries(rows.map(([, who, cells]) => [who, /href="\/verifications\//.test(cells!)]));
    };
    expect(await page(null)).toEqual({ bob: false, carol: false, alice: false });
    expect(await page(users.bob!.token)).toEqual({ bob: true, carol: false, alice: false });
    expect(await page(owner.token)).toEqual({ bob: true, carol: true, alice: true });

    const aliceRun = (await leaderboard({ problem: "fastest" })).body.entries.find(
      (entry: { participant: { handle: string } }) => entry.participant.handle === "alice",
    ).verification_run_id as string;
    const asBob = { authorization: `Bearer ${users.bob!.token}` };
    const inBrowser = await fetch(`${app.url}/verifications/${aliceRun}`, {
      headers: { ...asBob, accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    });
    expect(inBrowser.status).toBe(404);
    expect(inBrowser.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await inBrowser.text()).toMatch(/<h1>Not found<\/h1>[\s\S]*data-code="not_found"/);
    const asProgram = await fetch(`${app.url}/verifications/${aliceRun}`, {
      headers: { ...asBob, accept: "application/json" },
    });
    expect(asProgram.status).toBe(404);
    expect(await asProgram.json()).toMatchObject({ error: { code: "not_found" } });
  });

  it("8. each row names its run's signed attestation in the transparency log, linked for those who may read the run", async () => {
    await sequenceAttestations({ sql: db.sql, clock: () => new Date(), baseUrl: undefined });
    const page = async (token: string | null) => {
      const response = await fetch(`${app.url}/problems/fastest/leaderboard`, {
        headers: { accept: "text/html", ...(token && { authorization: `Bearer ${token}` }) },
      });
      const rows = [...(await response.text()).matchAll(/<tr data-participant="(\w+)"[^>]*>(.*?)<\/tr>/g)];
      return Object.fromEntries(
        rows.map(([, who, cells]) => [
          who,
          /href="\/verifications\/vrn_\w+#attestation"[^>]*>log #\d+</.test(cells!)
            ? "link"
            : /log #\d+/.test(cells!)
              ? "index"
              : "none",
        ]),
      );
    };
    expect(await page(null)).toEqual({ bob: "index", carol: "index", alice: "index" });
    expect(await page(users.bob!.token)).toEqual({ bob: "link", carol: "index", alice: "index" });
  });

  it("7. an unknown path answers a browser with the site's HTML 404 and a program with JSON", async () => {
    const browserAnswer = await fetch(`${app.url}/no/such/page`, { headers: { accept: "text/html" } });
    expect(browserAnswer.status).toBe(404);
    expect(browserAnswer.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await browserAnswer.text()).toContain('data-code="not_found"');
    for (const accept of ["*/*", "application/json", ""]) {
      const programAnswer = await fetch(`${app.url}/no/such/page`, { headers: { accept } });
      expect(programAnswer.status, accept).toBe(404);
      expect(await programAnswer.json()).toMatchObject({ error: { code: "not_found" } });
    }
    // Paths only programs use keep JSON even for a browser.
    const api = await fetch(`${app.url}/api/no-such`, { headers: { accept: "text/html" } });
    expect(api.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it.skipIf(!hasBrowser)(
    "5. the page ranks the entries with the baseline drawn among them, and says when scores are withheld",
    async () => {
      const context = await browser!.newContext({ bypassCSP: true });
      try {
        const page = await context.newPage();
        await page.goto(`${app.url}/problems/fastest/leaderboard`);
        const rows = page.getByTestId("leaderboard").locator("tbody tr");
        expect(
          await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-participant") ?? "baseline")),
        ).toEqual(["bob", "baseline", "carol", "alice"]);
        await expectAccessible(page);
        await screenshot(page, "leaderboard");

        await page.goto(`${app.url}/problems/sealed-points/leaderboard`);
        expect(await page.getByTestId("withheld").textContent()).toContain("until 2030-02-01T00:00:00.000Z");
        expect(await page.getByTestId("leaderboard").count()).toBe(0);
        await expectAccessible(page);
        await screenshot(page, "leaderboard-withheld");

        // The owner (with a bearer token, which pages take like a session) sees the sealed entries.
        const asOwner = await browser!.newContext({
          extraHTTPHeaders: { authorization: `Bearer ${owner.token}` },
        });
        try {
          const ownerPage = await asOwner.newPage();
          await ownerPage.goto(`${app.url}/problems/sealed-points/leaderboard`);
          expect(
            await ownerPage.getByTestId("leaderboard").locator("tbody tr[data-participant]").count(),
          ).toBe(1);
        } finally {
          await asOwner.close();
        }

        // A browser's unknown path is the site's error page, in the frame, accessible.
        const missing = await page.goto(`${app.url}/no/such/page`);
        expect(missing!.status()).toBe(404);
        expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Not found");
        await expectAccessible(page);

        await page.goto(`${app.url}/problems/most-points`);
        await page.getByRole("link", { name: "Leaderboard" }).click();
        expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Leaderboard: Most points");
      } finally {
        await context.close();
      }
    },
  );
});
