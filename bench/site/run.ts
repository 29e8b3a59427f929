/**
 * bench/site: server time of the website's longest list page, a leaderboard of 1,000
 * participants (1,000 rows, its ceiling), against the same read as JSON from /api (the data
 * without the HTML) and /healthz (the request alone), measured in the same run.
 *
 * Prints p50 and p95 of sequential requests over loopback (BENCH_REQUESTS, default 200) and the
 * rendering alone (renderLeaderboardPage on the same data, in process). Every figure line reads
 * `name  figure  baseline  ratio`. Run with `npm run bench:site` (DATABASE_URL, else the embedded
 * PostgreSQL). The goal (issue 16): a list page of 1,000 rows under 100 ms of server time.
 * Also the author's "My work" page (`/work`) of an author with 1,000 Problems (its first page of 50),
 * and a participant's `/me`, whose "Your best scores" reads the leaderboards of the 10 Problems
 * they scored on most recently (its ceiling): one of 1,000 rows and nine of 100.
 * Summary lines (printSummary) close the output.
 */
import { pino } from "pino";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { openServices } from "../../server/src/edges/cli/open-services.ts";
import { renderLeaderboardPage } from "../../server/src/edges/http/pages/render-leaderboard-page.ts";
import { getLeaderboard } from "../../server/src/leaderboards/get-leaderboard.ts";
import {
  contractDocument,
  seedContract,
  seedFinishedRun,
  seedProblem,
  seedUser,
} from "../../server/test/support/seed-records.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { percentile, printSummary, sample } from "../support/measure.ts";

const ROWS = 1000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const log = pino({ level: "silent" });

const db = await benchDatabase();
try {
  const services = await openServices({ sql: db.sql, log, clock: () => new Date(), dataDir: db.dataDir });
  const owner = await seedUser(db.sql, "owner", { capabilities: ["author"] });
  const contractId = await seedContract(db.sql, owner.id, {
    ...contractDocument(),
    result_kind: "score",
    score: { unit: "points", description: "points", direction: "higher_is_better" },
  });
  const problem = await seedProblem(services, {
    owner: owner.id,
    slug: "crowded",
    title: "A crowded leaderboard",
    visibility: "listed",
    revision: { verifierContractId: contractId },
  });
  const seedStart = performance.now();
  const participants: Array<{ id: string; token: string }> = [];
  for (let i = 0; i < ROWS; i++) {
    const user = await seedUser(db.sql, `participant-${i}`);
    participants.push(user);
    await seedFinishedRun(db.sql, {
      problemId: problem.problemId,
      revisionId: problem.revisionId,
      contractId,
      userId: user.id,
      result: "verified",
      score: (i * 7919) % 10007,
    });
  }
  // Nine more scored Problems of 100 participants each, participant-0 among them: /me reads ten boards.
  for (let p = 0; p < 9; p++) {
    const other = await seedProblem(services, {
      owner: owner.id,
      slug: `scored-${p}`,
      title: `Scored problem ${p}`,
      visibility: "listed",
      revision: { verifierContractId: contractId },
    });
    for (let i = 0; i < 100; i++) {
      await seedFinishedRun(db.sql, {
        problemId: other.problemId,
        revisionId: other.revisionId,
        contractId,
        userId: participants[i]!.id,
        result: "verified",
        score: (i * 31 + p) % 1009,
      });
    }
  }
  // The author's own work: 1,000 more Problems, private, for the "My work" page.
  for (let i = 0; i < ROWS - 1; i++) {
    await seedProblem(services, { owner: owner.id, slug: `own-${i}`, title: `Own problem ${i}` });
  }
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const app = buildApp(services);
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  const get =
    (path: string, headers: Record<string, string> = {}) =>
    async () => {
      const response = await fetch(`${url}${path}`, { headers });
      if (!response.ok) throw new Error(`${path}: ${response.status}`);
      await response.arrayBuffer();
    };
  const auth = { authorization: `Bearer ${owner.token}` };
  const health = await sample(get("/healthz"), REQUESTS);
  const json = await sample(get("/api/problems/crowded/leaderboard", auth), REQUESTS);
  const page = await sample(get("/problems/crowded/leaderboard"), REQUESTS);
  const myWork = await sample(get("/work", { ...auth, accept: "text/html" }), REQUESTS);
  const participantAuth = { authorization: `Bearer ${participants[0]!.token}`, accept: "text/html" };
  const mePage = await (await fetch(`${url}/me`, { headers: participantAuth })).text();
  const boards = (mePage.match(/\/leaderboard"/g) ?? []).length;
  if (boards < 10) throw new Error(`expected /me to show 10 best scores, found ${boards} leaderboard links`);
  const me = await sample(get("/me", participantAuth), REQUESTS);
  const board = await getLeaderboard(db.sql, { viewer: null, now: new Date() }, { problem: "crowded" });
  if (board.entries.length !== ROWS) throw new Error(`expected ${ROWS} entries, got ${board.entries.length}`);
  const render = await sample(
    async () =>
      renderLeaderboardPage(
        board,
        "A crowded leaderboard",
        { handle: null, path: "/" },
        () => false,
      ).toString(),
    REQUESTS,
  );
  await app.close();

  const line = (name: string, figure: number, baseline: number) =>
    console.log(
      `${name.padEnd(52)} ${figure.toFixed(2).padStart(8)} ms   baseline ${baseline.toFixed(2).padStart(8)} ms   ratio ${(figure / baseline).toFixed(2)}x`,
    );
  console.log(
    `bench/site on ${db.description}, node ${process.version}: ${ROWS} rows (seeded in ${seedSeconds.toFixed(1)} s), ${REQUESTS} sequential requests each`,
  );
  line("site: leaderboard page, 1,000 rows, p50", percentile(page, 50), percentile(health, 50));
  line("site: leaderboard page, 1,000 rows, p95", percentile(page, 95), percentile(health, 95));
  line("site: the same as JSON from /api, p50", percentile(json, 50), percentile(health, 50));
  line("site: My work page (50 of 1,000 problems), p50", percentile(myWork, 50), percentile(health, 50));
  line("site: My work page (50 of 1,000 problems), p95", percentile(myWork, 95), percentile(health, 95));
  line("site: /me, best scores from 10 leaderboards, p50", percentile(me, 50), percentile(health, 50));
  line("site: /me, best scores from 10 leaderboards, p95", percentile(me, 95), percentile(health, 95));
  line(
    "site: rendering 1,000 rows alone, p50 (vs the JSON read)",
    percentile(render, 50),
    percentile(json, 50),
  );
  printSummary({
    name: "site: leaderboard page of 1,000 rows, p50",
    figure: percentile(page, 50),
    baseline: percentile(health, 50),
    unit: "ms",
    baselineName: "/healthz",
  });
  printSummary({
    name: "site: My work page, 50 of 1,000 problems, p50",
    figure: percentile(myWork, 50),
    baseline: percentile(health, 50),
    unit: "ms",
    baselineName: "/healthz",
  });
  printSummary({
    name: "site: /me with best scores from 10 leaderboards, p50",
    figure: percentile(me, 50),
    baseline: percentile(health, 50),
    unit: "ms",
    baselineName: "/healthz",
  });
} finally {
  await db.close();
}
