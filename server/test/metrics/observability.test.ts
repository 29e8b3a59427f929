import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IdPrefix } from "@svc/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { svcWith, writePackage } from "../../../app/test/cli/support-run.ts";
import { addUser } from "../../src/users/add-user.ts";
import { grantCapability } from "../../src/users/grant-capability.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import { fixturePackage } from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type FleetProcess, migrateOnce, startFleetProcess } from "../support/fleet.ts";
import { createTestDatabase, describeWithDatabase, type TestDatabase } from "../support/test-database.ts";

const DEPLOY = new URL("../../../deploy/", import.meta.url).pathname;
const hasPrometheus = commandExists("prometheus") && commandExists("promtool");
if (!hasPrometheus && process.env.CI === "true") {
  throw new Error("CI=true but Prometheus is not installed (Debian's prometheus package)");
}

const describeIfPrometheus = hasPrometheus ? describeWithDatabase : describe.skip;

/**
 * What an operator sees of a web replica and a worker process after a small workload (a campaign
 * published, submissions verified): each serves `/metrics` on its own SVC_METRICS_ADDR, scraped
 * by a real Prometheus on loopback, and exports traces over OTLP/HTTP to a local receiver that
 * decodes them, as a collector would. The alert rules and the dashboard in deploy/ are checked
 * against what the processes export, so neither can name a series that does not exist.
 */
describeIfPrometheus("Prometheus and an OTLP receiver watch a web replica and a worker", () => {
  let db: TestDatabase;
  let web: FleetProcess;
  let worker: FleetProcess;
  let prometheus: ChildProcess | undefined;
  let prometheusUrl = "";
  let client: TestClient | undefined;
  let otlp: OtlpReceiver;
  const temps: string[] = [];
  const cleanups: Array<() => void> = [];
  const scraped: Record<string, string> = {};

  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
    // One blob directory for both processes, as one host's deployment shares it.
    const blobs = mkdtempSync(join(tmpdir(), "svc-metrics-blobs-"));
    temps.push(blobs);
    otlp = await startOtlpReceiver();
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      // Spans leave in batches every 100 ms, not every 5 s, so the test waits little.
      OTEL_BSP_SCHEDULE_DELAY: "100",
      DATABASE_URL: db.url,
      SVC_BLOB_DIR: blobs,
      SVC_MIGRATE: "wait",
      SVC_METRICS_ADDR: "127.0.0.1:0",
      SVC_PYTHON_IMAGE: process.env.SVC_PYTHON_IMAGE ?? "",
    };
    await migrateOnce(env);
    web = startFleetProcess("web", env);
    worker = startFleetProcess("worker", { ...env, SVC_WORKERS: "2" });
    await Promise.all([web.ready, worker.ready]);
  }, 120_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    prometheus?.kill("SIGKILL");
    await Promise.all([web?.stop("SIGKILL"), worker?.stop("SIGKILL")]);
    await otlp?.close();
    await db?.drop();
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
    for (const cleanup of cleanups) cleanup();
  }, 30_000);

  const metricsUrlOf = (member: FleetProcess, msg: string, field: string): string =>
    String(member.lines.find((line) => line.msg === msg)?.[field] ?? "");

  it("1. each process serves its metrics on its own address, and the public listener does not", async () => {
    const webMetrics = metricsUrlOf(web, "metrics are served", "url");
    const workerMetrics = metricsUrlOf(worker, "svc worker is running", "metrics_url");
    expect(webMetrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(workerMetrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await fetch(new URL("/metrics", web.url))).status).toBe(404);
    const elsewhere = await fetch(webMetrics.replace("/metrics", "/healthz"));
    expect(elsewhere.status).toBe(404);
    scraped.web = webMetrics;
    scraped.worker = workerMetrics;
  });

  it("2. a workload: a campaign published and twelve submissions verified", async () => {
    await addUser(db.sql, { handle: "ada" });
    await addUser(db.sql, { handle: "solver" });
    await grantCapability(db.sql, {
      userId: (await db.sql`select id from users where handle = 'ada'`)[0]!.id,
      capability: "author",
    });
    const adaToken = (await issueToken(db.sql, "ada", ["read", "contribute"])).token;
    const solverToken = (await issueToken(db.sql, "solver", ["read", "contribute"])).token;
    const home = mkdtempSync(join(tmpdir(), "svc-metrics-home-"));
    temps.push(home);
    const pkg = writePackage(fixturePackage("valid-builtin-sat"));
    cleanups.push(pkg.remove);
    const published = await svcWith(
      { env: { SVC_BASE_URL: web.url, SVC_TOKEN: adaToken, XDG_CONFIG_HOME: home }, sleep: async () => {} },
      ["draft", pkg.dir],
    );
    expect(published.code, published.stderr).toBe(0);
    await db.sql`update problems set visibility = 'unlisted' where slug = 'small-sat'`;

    client = await clientLines[0].connect(web.url, solverToken);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client!.callTool(name, args);
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(envelopeOf(result))}`);
      // biome-ignore lint/suspicious/noExplicitAny: tool envelopes are read field by field
      return envelopeOf(result) as any;
    };
    const good = readFileSync(fixtureFile("good.txt"), "utf8");
    const { attempt } = await call("start_attempt", { problem: "small-sat" });
    for (let i = 0; i < 12; i++) {
      const { artifact } = await call("upload_artifact", {
        attempt_id: attempt.id,
        filename: "assignment.txt",
        content_text: good,
      });
      await call("create_submission", {
        attempt_id: attempt.id,
        artifacts: [{ role: "assignment", artifact_id: artifact.id }],
      });
    }
    // One refusal, so an error outcome is counted too.
    expect((await client.callTool("get_problem", { problem: "no-such-problem" })).isError).toBe(true);
    const until = Date.now() + 60_000;
    for (;;) {
      const [row] = await db.sql<{ n: number }[]>`
        select count(*)::int as n from verification_runs where status = 'finished'`;
      if (row!.n === 12) break;
      if (Date.now() > until) throw new Error(`only ${row!.n} of 12 runs finished`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const results = await db.sql<{ result: string; evidence_md: string }[]>`
      select result, evidence_md from verification_runs`;
    for (const run of results) expect(run.result, run.evidence_md).toBe("verified");
  }, 120_000);

  it("3. the series are there, labelled by route, tool, outcome and result, never by an id", async () => {
    const webText = await (await fetch(scraped.web!)).text();
    const workerText = await (await fetch(scraped.worker!)).text();
    const fromWeb = samples(webText);
    const fromWorker = samples(workerText);
    expect(
      fromWeb("svc_http_requests_total", { method: "POST", route: "/mcp", status: "200" }),
    ).toBeGreaterThan(12);
    expect(fromWeb("svc_mcp_tool_calls_total", { tool: "create_submission", outcome: "ok" })).toBe(12);
    expect(fromWeb("svc_mcp_tool_calls_total", { tool: "get_problem", outcome: "not_found" })).toBe(1);
    expect(fromWeb("svc_mcp_tool_call_duration_seconds_count", { tool: "upload_artifact" })).toBe(12);
    expect(fromWeb("svc_verification_runs", { status: "queued" })).toBe(0);
    expect(fromWeb("svc_jobs", { task: "verify_run", state: "queued" })).toBe(0);
    expect(fromWeb("svc_db_connections", { pool: "svc", state: "idle" })).toBeGreaterThan(0);
    expect(fromWeb("svc_blob_store_free_bytes", {})).toBeGreaterThan(0);
    expect(fromWeb("svc_validation_duration_seconds_count", { outcome: "linted" })).toBeGreaterThan(0);
    expect(fromWorker("svc_verification_runs_finished_total", { result: "verified" })).toBe(12);
    expect(fromWorker("svc_verification_run_wait_seconds_count", {})).toBe(12);
    // The 12 runs' stages and the conformance run's two fixtures (one to verify, one to refute).
    expect(
      fromWorker("svc_sandbox_stage_duration_seconds_count", { backend: "builtin", result: "verified" }),
    ).toBe(13);
    expect(
      fromWorker("svc_sandbox_stage_duration_seconds_count", { backend: "builtin", result: "refuted" }),
    ).toBe(1);
    expect(fromWorker("process_resident_memory_bytes", {})).toBeGreaterThan(0);
    // A worker exports its own process only: the deployment's gauges come from serve.
    expect(workerText).not.toMatch(/^svc_verification_runs\{/m);
    // Label values are templates and closed sets: no id of any record, no handle.
    const anyId = new RegExp(`"(${Object.values(IdPrefix).join("|")})_[0-9a-z]{10,32}"`);
    for (const text of [webText, workerText]) {
      expect(text).not.toMatch(anyId);
      expect(text).not.toMatch(/solver|ada/);
    }
  });

  it("4. a real Prometheus scrapes both and answers queries over the series", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-prometheus-"));
    temps.push(dir);
    const port = await freePort();
    const targets = [scraped.web!, scraped.worker!].map((url) => new URL(url).host);
    writeFileSync(
      join(dir, "prometheus.yml"),
      [
        "global:",
        "  scrape_interval: 1s",
        "scrape_configs:",
        "  - job_name: svc",
        "    static_configs:",
        `      - targets: [${targets.map((t) => `"${t}"`).join(", ")}]`,
        "",
      ].join("\n"),
    );
    prometheus = spawn(
      "prometheus",
      [
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: "ignore" },
    );
    prometheusUrl = `http://127.0.0.1:${port}`;
    const query = async (
      expr: string,
    ): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
      const answer = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`).catch(
        () => null,
      );
      if (!answer?.ok) return [];
      return ((await answer.json()) as { data: { result: [] } }).data.result;
    };
    const waitFor = async (expr: string) => {
      const until = Date.now() + 60_000;
      for (;;) {
        const result = await query(expr);
        if (result.length > 0) return result;
        if (Date.now() > until) throw new Error(`Prometheus never answered ${expr}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const up = await waitFor('sum(up{job="svc"}) == 2');
    expect(up[0]!.value[1]).toBe("2");
    const finished = await waitFor('sum(svc_verification_runs_finished_total{result="verified"})');
    expect(finished[0]!.value[1]).toBe("12");
    const calls = await waitFor(
      'sum by (tool) (svc_mcp_tool_calls_total{outcome="ok", tool="upload_artifact"})',
    );
    expect(calls[0]!.value[1]).toBe("12");
    const roles = await waitFor("count by (role) (process_resident_memory_bytes)");
    expect(roles.map((row) => row.metric.role).sort()).toEqual(["serve", "worker"]);
    // Every metric the alert rules and the dashboard name is one the processes export.
    const exported = new Set(
      ((await (await fetch(`${prometheusUrl}/api/v1/label/__name__/values`)).json()) as { data: string[] })
        .data,
    );
    for (const name of seriesNamedIn(DEPLOY)) expect(exported, `deploy/ names ${name}`).toContain(name);
  }, 90_000);

  it("5. one trace runs from the MCP request through create_submission to the worker's run and its stage", async () => {
    const byName = async (name: string, where: (span: ReceivedSpan) => boolean = () => true) => {
      const until = Date.now() + 30_000;
      for (;;) {
        const found = otlp.spans.filter((span) => span.name === name && where(span));
        if (found.length > 0) return found;
        if (Date.now() > until) {
          throw new Error(
            `no span ${name}; received: ${[...new Set(otlp.spans.map((s) => s.name))].join(", ")}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const [call] = await byName("tools/call create_submission");
    const traceId = call!.traceId;
    const inTrace = (span: ReceivedSpan) => span.traceId === traceId;
    // 1. The tool call is the child of the request's server span, named by its route.
    const [request] = await byName(
      "POST /mcp",
      (span) => inTrace(span) && span.spanId === call!.parentSpanId,
    );
    expect(request!.service).toBe("svc-serve");
    expect(request!.attributes["http.route"]).toBe("/mcp");
    // 2. The job the call enqueued carried the trace to the worker: its run is the call's child.
    const [run] = await byName("verify_run", (span) => inTrace(span) && span.parentSpanId === call!.spanId);
    expect(run!.service).toBe("svc-worker");
    // 3. The run's sandbox stage is the run's child, with its backend and result.
    const [stage] = await byName(
      "sandbox stage",
      (span) => inTrace(span) && span.parentSpanId === run!.spanId,
    );
    expect(stage!.attributes["svc.sandbox.backend"]).toBe("builtin");
    expect(stage!.attributes["svc.stage_result"]).toBe("verified");
    // 4. The publication of the upload has its span, under the publishing tool call.
    const [publish] = await byName("publish upload");
    const [publishCall] = await byName(
      "tools/call publish_authoring_upload",
      (span) => span.spanId === publish!.parentSpanId,
    );
    expect(publishCall!.traceId).toBe(publish!.traceId);
    expect(otlp.contentTypes).toEqual(new Set(["application/json"]));
  }, 60_000);

  it("6. the alert rules pass promtool", () => {
    const output = execFileSync("promtool", ["check", "rules", join(DEPLOY, "prometheus/alerts.yml")], {
      encoding: "utf8",
    });
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
  });
});

/**
 * A reader of the text exposition format: the value of the one sample of `name` whose labels
 * include `labels` (the role label is checked too), or undefined.
 */
function samples(text: string, role = text.includes('role="serve"') ? "serve" : "worker") {
  const rows = text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not an exposition line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [
          m[1],
          m[2],
        ]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
  return (name: string, labels: Record<string, string>): number | undefined => {
    const wanted = { ...labels, role };
    const found = rows.filter(
      (row) => row.name === name && Object.entries(wanted).every(([key, value]) => row.labels[key] === value),
    );
    if (found.length > 1)
      throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
    return found[0]?.value;
  };
}

function fixtureFile(name: string): URL {
  return new URL(`../../../app/test/fixtures/lint/valid-builtin-sat/fixtures/${name}`, import.meta.url);
}

/** The metric names (svc_*, process_*, nodejs_*) the rules and the dashboard's queries use. */
function seriesNamedIn(deploy: string): Set<string> {
  const texts = [
    readFileSync(join(deploy, "prometheus/alerts.yml"), "utf8"),
    readFileSync(join(deploy, "grafana/svc-dashboard.json"), "utf8"),
  ];
  const names = new Set<string>();
  for (const text of texts) {
    for (const [name] of text.matchAll(/\b(?:svc|process|nodejs)_[a-z0-9_]+/g)) {
      // A histogram's _bucket/_count/_sum are exported under those names too.
      names.add(name);
    }
  }
  return names;
}

function commandExists(name: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  contentTypes: Set<string>;
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP trace receiver on loopback (POST /v1/traces, JSON encoding, as
 * @opentelemetry/exporter-trace-otlp-http sends it): decodes each export request into spans.
 */
async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes = new Set<string>();
  const value = (v: Record<string, unknown>): unknown =>
    v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue ?? null;
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      contentTypes.add(String(request.headers["content-type"]).split(";")[0]!);
      type KeyValue = { key: string; value: Record<string, unknown> };
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: Array<{
          resource: { attributes: KeyValue[] };
          scopeSpans: Array<{
            spans: Array<{
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              name: string;
              attributes: KeyValue[];
            }>;
          }>;
        }>;
      };
      for (const resourceSpans of body.resourceSpans) {
        const service = String(
          value(resourceSpans.resource.attributes.find((a) => a.key === "service.name")?.value ?? {}),
        );
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) {
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? "",
              name: span.name,
              attributes: Object.fromEntries(span.attributes.map((a) => [a.key, value(a.value)])),
            });
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
