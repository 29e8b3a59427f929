import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { bwrapRuns, leafHash, MemoryMerkleTree, verifyInclusion } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import { svcWith } from "../../../app/test/cli/support-run.ts";
import { addUser } from "../../src/users/add-user.ts";
import { grantCapability } from "../../src/users/grant-capability.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import {
  editJson,
  type Files,
  fixturePackage,
  SLOW_ANSWER,
  sleepyScript,
} from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { TEARDOWN_BOUND_MS, within } from "../support/bounded-teardown.ts";
import { type FleetProcess, migrateOnce, startFleetProcess } from "../support/fleet.ts";
import { type LoadBalancer, startLoadBalancer } from "../support/load-balancer.ts";
import { type LocalS3Server, startLocalS3Server } from "../support/local-s3-server.ts";
import { createTestDatabase, describeWithDatabase, type TestDatabase } from "../support/test-database.ts";

const hasBwrap = bwrapRuns();
if (!hasBwrap && process.env.CI === "true") throw new Error("CI=true but bubblewrap does not run");

/**
 * Past one machine, proven on one host: two web replicas (`svc-server serve` with no workers)
 * behind a round-robin load balancer and two worker processes (`svc-server worker`), each with its
 * own data directory as if on its own host, over one PostgreSQL database and one S3 bucket (a
 * local S3 protocol server). Nothing is shared but what the deployment docs say is shared.
 */
describeWithDatabase("a fleet: two web replicas and two workers over one database and one bucket", () => {
  let db: TestDatabase;
  let s3: LocalS3Server;
  let lb: LoadBalancer;
  let env: Record<string, string>;
  let webA: FleetProcess;
  let webB: FleetProcess;
  const workers: FleetProcess[] = [];
  /** Every process the file starts, stopped by the teardown whatever a test left running. */
  const members: FleetProcess[] = [];
  const start = (role: "web" | "worker", environment: Record<string, string>): FleetProcess => {
    const member = startFleetProcess(role, environment);
    members.push(member);
    return member;
  };
  const clients: TestClient[] = [];
  const temps: string[] = [];
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
    s3 = await startLocalS3Server("svc-fleet");
    lb = await startLoadBalancer();
    env = {
      DATABASE_URL: db.url,
      ...s3.env("prod/"),
      SVC_BASE_URL: lb.url,
      SVC_MIGRATE: "wait",
      SVC_WORKER_DEAD_AFTER_S: "6",
      SVC_PYTHON_IMAGE: process.env.SVC_PYTHON_IMAGE ?? "",
    };
  });

  // Everything the file started stops within TEARDOWN_BOUND_MS: the steps are bounded and run side by side.
  afterAll(async () => {
    await Promise.all([
      ...clients.map((client) => within("an MCP client's close", client.close())),
      ...members.map((member) => member.stop("SIGKILL")),
    ]);
    await Promise.all([within("the load balancer's close", lb?.close() ?? Promise.resolve()), s3?.close()]);
    await db?.drop();
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  }, TEARDOWN_BOUND_MS);

  const connect = async (url: string, handle: string) => {
    const client = await clientLines[0].connect(url, tokens[handle]!);
    clients.push(client);
    return client;
  };
  // biome-ignore lint/suspicious/noExplicitAny: tool envelopes are read field by field
  const call = async (client: TestClient, name: string, args: Record<string, unknown>): Promise<any> => {
    const result = await client.callTool(name, args);
    const envelope = envelopeOf(result);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(envelope)}`);
    return envelope;
  };
  const writeFiles = (files: Files): string => {
    const dir = mkdtempSync(join(tmpdir(), "svc-fleet-pkg-"));
    temps.push(dir);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, "pkg", path)), { recursive: true });
      writeFileSync(join(dir, "pkg", path), content);
    }
    return join(dir, "pkg");
  };
  /** `svc draft` (the real command, in process) against `server`, with its retries recorded. */
  const draft = async (server: string, files: Files) => {
    const home = mkdtempSync(join(tmpdir(), "svc-fleet-home-"));
    temps.push(home);
    const waits: number[] = [];
    const run = await svcWith(
      {
        env: { SVC_BASE_URL: server, SVC_TOKEN: tokens.ada, XDG_CONFIG_HOME: home },
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
      ["draft", writeFiles(files)],
    );
    return { ...run, waits };
  };
  const count = async (query: string): Promise<number> =>
    Number((await db.sql.unsafe<{ n: string }[]>(query))[0]!.n);
  const waitFor = async (what: string, check: () => Promise<boolean>, ms = 120_000) => {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it("replicas started with SVC_MIGRATE=wait wait for the deploy's one svc-server migrate, then serve", async () => {
    webA = start("web", env);
    webB = start("web", env);
    await webA.logged("waiting for svc-server migrate to bring the schema up to date");
    await webB.logged("waiting for svc-server migrate to bring the schema up to date");
    const applied = await migrateOnce(env);
    expect(applied.length).toBeGreaterThan(10);
    await Promise.all([webA.ready, webB.ready]);
    expect(webA.url).not.toBe(webB.url);
    lb.setUpstreams([webA.url, webB.url]);
    workers.push(start("worker", { ...env, SVC_WORKERS: "2" }));
    await workers[0]!.ready;

    for (const handle of ["ada", ...Array.from({ length: 20 }, (_, i) => `solver-${i}`)]) {
      await addUser(db.sql, { handle });
      tokens[handle] = (await issueToken(db.sql, handle, ["read", "contribute"])).token;
    }
    await grantCapability(db.sql, {
      userId: (await db.sql`select id from users where handle = 'ada'`)[0]!.id,
      capability: "author",
    });
  }, 120_000);

  it("a campaign published through replica A is read, and its signed download fetched, through replica B", async () => {
    const published = await draft(webA.url, fixturePackage("valid-builtin-sat"));
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toMatch(/create {2}small-sat revision 1 prb_/);
    await db.sql`update problems set visibility = 'unlisted' where slug = 'small-sat'`;

    const onB = await connect(webB.url, "solver-0");
    const problem = await call(onB, "get_problem", { problem: "small-sat" });
    const instance = problem.reference_resources.find((r: { key: string }) => r.key === "instance");
    // The link names the public address (the load balancer); fetched from replica B itself.
    const link = new URL(instance.download_url);
    expect(link.origin).toBe(lb.url);
    const fetched = await fetch(new URL(link.pathname + link.search, webB.url));
    expect(fetched.status).toBe(200);
    const expected = readFileSync(
      new URL("../../../app/test/fixtures/lint/valid-builtin-sat/reference/instance.cnf", import.meta.url),
    );
    expect(Buffer.from(await fetched.arrayBuffer()).equals(expected)).toBe(true);

    // The bytes live in the bucket, under the prefix, and in no replica's data directory.
    const hex = instance.content_hash.slice("sha256:".length);
    expect(await s3.keys("prod/")).toContain(`sha256/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}`);
    for (const member of [webA, webB, ...workers])
      expect(existsSync(join(member.dataDir, "blobs"))).toBe(false);
  }, 120_000);

  it("200 submissions spread over both replicas all finish, each run once, every artifact in the bucket", async () => {
    workers.push(start("worker", { ...env, SVC_WORKERS: "2" }));
    await workers[1]!.ready;
    const good = readFileSync(
      new URL("../../../app/test/fixtures/lint/valid-builtin-sat/fixtures/good.txt", import.meta.url),
      "utf8",
    );
    const bad = readFileSync(
      new URL("../../../app/test/fixtures/lint/valid-builtin-sat/fixtures/bad.txt", import.meta.url),
      "utf8",
    );
    const expected = new Map<string, string>();
    // 20 solvers, 10 submissions each; calls alternate between the replicas.
    await Promise.all(
      Array.from({ length: 20 }, async (_, solver) => {
        const handle = `solver-${solver}`;
        const replicas = [await connect(webA.url, handle), await connect(webB.url, handle)];
        const { attempt } = await call(replicas[solver % 2]!, "start_attempt", { problem: "small-sat" });
        for (let i = 0; i < 10; i++) {
          const via = replicas[(solver + i) % 2]!;
          const right = (solver + i) % 3 !== 0;
          const { artifact } = await call(via, "upload_artifact", {
            attempt_id: attempt.id,
            filename: "assignment.txt",
            content_text: right ? good : bad,
          });
          const created = await call(replicas[(solver + i + 1) % 2]!, "create_submission", {
            attempt_id: attempt.id,
            artifacts: [{ role: "assignment", artifact_id: artifact.id }],
          });
          expected.set(created.verification_run_id, right ? "verified" : "refuted");
        }
      }),
    );
    expect(expected.size).toBe(200);
    await waitFor(
      "200 runs to finish",
      async () =>
        (await count(
          "select count(*) as n from verification_runs where status = 'finished' and trigger = 'submission'",
        )) === 200,
    );
    const runs = await db.sql<{ id: string; result: string; submissions: number; results: number }[]>`
      select r.id, r.result,
        (select count(*)::int from submissions s where s.id = r.submission_id) as submissions,
        (select count(*)::int from verification_stage_results x where x.verification_run_id = r.id) as results
      from verification_runs r where r.trigger = 'submission'`;
    expect(runs).toHaveLength(200);
    for (const run of runs) {
      expect(run.result).toBe(expected.get(run.id));
      expect(run.submissions).toBe(1);
      expect(run.results).toBe(1);
    }
    expect(await count("select count(*) as n from submissions")).toBe(200);
    expect(
      await count("select count(*) as n from graphile_worker.jobs where task_identifier = 'verify_run'"),
    ).toBe(0);
    // Both replicas took submissions, and both worker processes ran some of them.
    const keys = new Set(await s3.keys("prod/"));
    const hashes = await db.sql<{ content_hash: string }[]>`select distinct content_hash from artifacts`;
    for (const { content_hash } of hashes) {
      const hex = content_hash.slice("sha256:".length);
      expect(keys.has(`sha256/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}`)).toBe(true);
    }
  }, 240_000);

  const sleepy = () => sleepyScript(5);
  /** The id a worker process locks its jobs with (graphile-worker's pool id). */
  const workerIdsOf = (member: FleetProcess): string[] =>
    (member.lines.find((line) => line.msg === "verification workers started")?.worker_ids as string[]) ?? [];

  it.skipIf(!hasBwrap)(
    "a worker killed with SIGKILL mid-run: its runs finish on the other worker, each once",
    async () => {
      const published = await draft(lb.url, sleepy());
      expect(published.code, published.stderr).toBe(0);
      await db.sql`update problems set visibility = 'unlisted' where slug = 'sleepy-root'`;
      await waitFor(
        "conformance of the published checker",
        async () =>
          (await count(
            "select count(*) as n from verifier_implementations where conformance->>'status' = 'pending'",
          )) === 0,
      );
      const client = await connect(lb.url, "solver-1");
      const { attempt } = await call(client, "start_attempt", { problem: "sleepy-root" });
      const runs: string[] = [];
      for (let i = 0; i < 6; i++) {
        const { artifact } = await call(client, "upload_artifact", {
          attempt_id: attempt.id,
          filename: "answer.txt",
          content_text: `${SLOW_ANSWER}\n`,
        });
        const created = await call(client, "create_submission", {
          attempt_id: attempt.id,
          artifacts: [{ role: "answer", artifact_id: artifact.id }],
        });
        runs.push(created.verification_run_id);
      }
      // Worker 1 is caught holding a run whose checker is running.
      const [victim, survivor] = workers as [FleetProcess, FleetProcess];
      const victimIds = workerIdsOf(victim);
      expect(victimIds.length).toBe(1);
      let held = "";
      await waitFor("worker 1 to hold a running stage", async () => {
        const rows = await db.sql<{ run: string }[]>`
          select r.id as run from verification_runs r
          join graphile_worker.jobs j on j.key = r.id
          join verification_stage_results x on x.verification_run_id = r.id and x.status = 'running'
          where r.id = any(${runs}) and j.locked_by = any(${victimIds})`;
        held = rows[0]?.run ?? "";
        return held !== "";
      });
      await victim.stop("SIGKILL");

      await waitFor(
        "the six slow runs to finish",
        async () =>
          (await count(
            `select count(*) as n from verification_runs where status = 'finished' and id in (${runs.map((id) => `'${id}'`).join(",")})`,
          )) === 6,
      );
      const finished = await db.sql<{ id: string; result: string; results: number }[]>`
        select r.id, r.result,
          (select count(*)::int from verification_stage_results x where x.verification_run_id = r.id) as results
        from verification_runs r where r.id = any(${runs})`;
      for (const run of finished) expect(run).toMatchObject({ result: "refuted", results: 1 });
      expect(survivor.lines.some((line) => line.msg === "released the jobs of dead workers")).toBe(true);
      expect(await count("select count(*) as n from graphile_worker.jobs where locked_by is not null")).toBe(
        0,
      );
      expect(held).not.toBe("");
    },
    240_000,
  );

  it("every replica serves one log: each finished run attested once, no gap, whichever worker's sequencer took it", async () => {
    // Both workers sequence (one killed above); the queue drains into one tree.
    await waitFor(
      "the attestation queue to drain",
      async () => (await count("select count(*) as n from attestation_queue")) === 0,
    );
    const entries = await db.sql<
      { log_index: string; verification_run_id: string; reason: string; envelope: string }[]
    >`
      select log_index, verification_run_id, reason, envelope from attestations order by log_index`;
    expect(entries.map((row) => Number(row.log_index))).toEqual([...entries.keys()]);
    const finished = await db.sql<
      { id: string }[]
    >`select id from verification_runs where status = 'finished'`;
    const attested = entries.filter((row) => row.reason === "finished").map((row) => row.verification_run_id);
    expect(attested).toHaveLength(finished.length);
    expect(new Set(attested)).toEqual(new Set(finished.map((row) => row.id)));

    // The same signed checkpoint and the same proofs from either web replica, and they hold.
    const read = async (replica: FleetProcess, query: string) => {
      const response = await fetch(`${replica.url}/api/transparency-log?${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as {
        checkpoint: { tree_size: number; root_hash: string; note: string };
        entry: { leaf_hash: string; inclusion_proof: { hashes: string[] } } | null;
        consistency_proof: { hashes: string[] } | null;
      };
    };
    const newest = (await read(webA, "")).checkpoint;
    expect(newest.tree_size).toBe(entries.length);
    const tree = new MemoryMerkleTree();
    for (const row of entries) tree.append(leafHash(Buffer.from(row.envelope)));
    expect(newest.root_hash).toBe(tree.root().toString("base64"));
    for (const index of [0, Math.floor(entries.length / 2), entries.length - 1]) {
      const query = `tree_size=${newest.tree_size}&log_index=${index}&from_size=1`;
      const [fromA, fromB] = await Promise.all([read(webA, query), read(webB, query)]);
      expect(fromB).toEqual(fromA);
      const root = Buffer.from(fromA.checkpoint.root_hash, "base64");
      const leaf = leafHash(Buffer.from(entries[index]!.envelope));
      expect(fromA.entry!.leaf_hash).toBe(leaf.toString("base64"));
      const proof = fromA.entry!.inclusion_proof.hashes.map((hash) => Buffer.from(hash, "base64"));
      expect(verifyInclusion(leaf, index, newest.tree_size, proof, root)).toBeNull();
    }
  }, 180_000);

  it("a web replica is stopped: the CLI's retries carry on against the other, and nothing is published twice", async () => {
    expect(await webA.stop("SIGTERM")).toBe(0);
    // The balancer has not noticed yet: the next request goes to the stopped replica.
    lb.sendNextTo(webA.url);
    const before = lb.badGateways;
    const files = editJson(fixturePackage("valid-builtin-sat"), "problem.json", (problem) => {
      problem.slug = "small-sat-two";
    });
    const published = await draft(lb.url, files);
    expect(published.code, published.stderr).toBe(0);
    expect(lb.badGateways).toBeGreaterThan(before);
    expect(published.stderr).toMatch(/failed \(attempt 1, .*\); retrying in/);
    expect(published.waits.length).toBeGreaterThan(0);
    expect(await count("select count(*) as n from problems where slug = 'small-sat-two'")).toBe(1);
    expect(
      await count(
        "select count(*) as n from problem_revisions v join problems p on p.id = v.problem_id where p.slug = 'small-sat-two'",
      ),
    ).toBe(1);

    // The fleet still takes work through the balancer: replica B and the surviving worker.
    await db.sql`update problems set visibility = 'unlisted' where slug = 'small-sat-two'`;
    const client = await connect(lb.url, "solver-2");
    const { attempt } = await call(client, "start_attempt", { problem: "small-sat-two" });
    const { artifact } = await call(client, "upload_artifact", {
      attempt_id: attempt.id,
      filename: "assignment.txt",
      content_text: readFileSync(
        new URL("../../../app/test/fixtures/lint/valid-builtin-sat/fixtures/good.txt", import.meta.url),
        "utf8",
      ),
    });
    const created = await call(client, "create_submission", {
      attempt_id: attempt.id,
      artifacts: [{ role: "assignment", artifact_id: artifact.id }],
    });
    await waitFor(
      "the run through replica B",
      async () =>
        (await count(
          `select count(*) as n from verification_runs where id = '${created.verification_run_id}' and result = 'verified'`,
        )) === 1,
    );
    // Nothing lost or duplicated over the whole fleet's life: one run per submission, all finished.
    expect(await count("select count(*) as n from submissions")).toBe(
      await count(
        "select count(*) as n from verification_runs where trigger = 'submission' and status = 'finished'",
      ),
    );
  }, 180_000);

  it("a replica told to stop answers /healthz with 503 for SVC_SHUTDOWN_DELAY_S while it still serves, then exits 0", async () => {
    const leaving = start("web", { ...env, SVC_SHUTDOWN_DELAY_S: "3" });
    await leaving.ready;
    expect((await fetch(`${leaving.url}/healthz`)).status).toBe(200);
    leaving.child.kill("SIGTERM");
    await leaving.logged("shutting down: /healthz answers 503 first");
    const health = await fetch(`${leaving.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({
      ok: false,
      error: { code: "unavailable", message: "this server is shutting down" },
    });
    // Still serving what the load balancer sends meanwhile.
    const read = await fetch(`${leaving.url}/api/problems`, {
      headers: { authorization: `Bearer ${tokens.ada}` },
    });
    expect(read.status).toBe(200);
    expect(await leaving.exited).toBe(0);
  }, 60_000);
});
