import { bwrapRuns } from "@svc/app";
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { startWorker } from "../../src/edges/worker/start-worker.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import {
  editJson,
  type Files,
  fixturePackage,
  newAuthor,
  newUser,
} from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { publishProblem } from "./support/verification-harness.ts";

const hasBwrap = bwrapRuns();
if (!hasBwrap && process.env.CI === "true")
  throw new Error("CI=true but bubblewrap does not run: the script checker suite must run");

/**
 * A solver's whole path over MCP against the real service and a real worker: start_attempt,
 * upload_artifact, create_submission, then get_verification until the run finishes. The builtin
 * contract runs in process; the ./checker.py contract runs under bubblewrap after its
 * conformance fixtures passed on publication.
 */
describeWithDatabase("verification over MCP", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let worker: Runner;
  let solver: Principal;
  let client: TestClient;
  let solverToken: string;

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    worker = await startWorker(services, { concurrency: 2, pollInterval: 100 });
    const author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    solverToken = (await issueToken(db.sql, solver.user.handle, ["read", "contribute"])).token;
    const packages = ["valid-builtin-sat", ...(hasBwrap ? ["valid-script", leavesEvidence()] : [])];
    for (const pkg of packages) {
      const problem = await publishProblem(services, author, pkg);
      await db.sql`update problems set visibility = 'unlisted' where id = ${problem.problem_id}`;
    }
    await conformanceSettled(services);
    client = await clientLines[0].connect(app.url, solverToken);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await worker?.stop();
    await app?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool(name, args);
    const envelope = envelopeOf(result);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(envelope)}`);
    return envelope as Record<string, any>;
  };

  async function submit(problem: string, role: string, filename: string, content: string) {
    const { attempt } = await call("start_attempt", { problem });
    const { artifact } = await call("upload_artifact", {
      attempt_id: attempt.id,
      filename,
      content_text: content,
    });
    const created = await call("create_submission", {
      attempt_id: attempt.id,
      artifacts: [{ role, artifact_id: artifact.id }],
    });
    expect(created.verification_run_id).toMatch(/^vrn_/);
    return await finishedRun(created.verification_run_id);
  }

  async function finishedRun(runId: string) {
    const until = Date.now() + 30_000;
    for (;;) {
      const { verification } = await call("get_verification", { verification_run_id: runId });
      if (verification.status === "finished") return verification;
      if (Date.now() > until) throw new Error(`run ${runId} did not finish: ${JSON.stringify(verification)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("verifies a satisfying assignment and refutes a falsifying one with the builtin", async () => {
    const good = await submit("small-sat", "assignment", "answer.txt", "v 1 2 -3 0\n");
    expect(good).toMatchObject({ result: "verified", status: "finished" });
    expect(good.stage_results[0].mechanism.sandbox.backend).toBe("builtin");
    const bad = await submit("small-sat", "assignment", "answer.txt", "v -1 2 -3 0\n");
    expect(bad.result).toBe("refuted");
  });

  describe.skipIf(!hasBwrap)("a ./checker.py contract under bubblewrap", () => {
    it("verifies the right answer and refutes a wrong one, with the log and evidence recorded", async () => {
      const good = await submit("integer-root", "answer", "answer.txt", "1234\n");
      expect(good).toMatchObject({ result: "verified" });
      const stage = good.stage_results[0];
      expect(stage.mechanism.sandbox).toMatchObject({ backend: "bwrap", exit_code: 0 });
      expect(stage.mechanism.sandbox.duration_ms).toBeGreaterThanOrEqual(0);
      expect(stage.evidence_md).toContain("1234 squared is 1522756");
      const bad = await submit("integer-root", "answer", "answer.txt", "1235\n");
      expect(bad).toMatchObject({ result: "refuted" });

      const [content] = await client.readResource(`svc://verifications/${good.id}`);
      expect(JSON.parse(content!.text!)).toMatchObject({ id: good.id, result: "verified" });
      const [log] = await client.readResource(stage.log.resource_uri);
      expect(log!._meta).toMatchObject({ content_hash: stage.log.content_hash });

      const page = await fetch(`${app.url}/verifications/${good.id}`, {
        headers: { authorization: `Bearer ${solverToken}` },
      });
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      expect(await page.text()).toContain('data-testid="result" class="result verified"');
      const json = await fetch(`${app.url}/verifications/${good.id}`, {
        headers: { authorization: `Bearer ${solverToken}`, accept: "application/json" },
      });
      expect(await json.json()).toMatchObject({ id: good.id, result: "verified" });
      const logBytes = await fetch(stage.log.url, { headers: { authorization: `Bearer ${solverToken}` } });
      expect(logBytes.headers.get("x-svc-content-hash")).toBe(stage.log.content_hash);

      const implementationId = stage.mechanism.sandbox.verifier_implementation_id;
      const program = await fetch(`${app.url}/api/verifier-implementations/${implementationId}/program`, {
        headers: { authorization: `Bearer ${solverToken}` },
      });
      expect(program.status).toBe(200);
      expect(await program.text()).toContain("TARGET = 1522756");
      const missing = await fetch(
        `${app.url}/api/verifier-implementations/vfi_00000000000000000000/program`,
        {
          headers: { authorization: `Bearer ${solverToken}` },
        },
      );
      expect(missing.status).toBe(404);
    });
  });

  describe.skipIf(!hasBwrap)("evidence files", () => {
    it("lists a stage's evidence files over MCP and HTTP and serves each file's bytes as an attachment", async () => {
      const run = await submit("leaves-evidence", "answer", "answer.txt", "1234\n");
      expect(run).toMatchObject({ result: "verified" });
      const stage = run.stage_results[0];
      expect(stage.mechanism.sandbox.evidence_hash).toMatch(/^sha256:/);
      const resourceUri = `svc://verifications/${run.id}/stages/check_answer/evidence`;
      const [content] = await client.readResource(resourceUri);
      const listing = JSON.parse(content!.text!);
      const base = `${app.url}/verifications/${run.id}/stages/check_answer/evidence`;
      expect(listing).toMatchObject({
        verification_run_id: run.id,
        stage_key: "check_answer",
        evidence_hash: stage.mechanism.sandbox.evidence_hash,
      });
      expect(listing.files.map((f: { path: string }) => f.path)).toEqual([
        "<b>page.html",
        "latest",
        "notes/trace.txt",
      ]);
      const [page, link, trace] = listing.files;
      expect(trace).toMatchObject({ size_bytes: 12, url: `${base}/notes/trace.txt` });
      expect(link).toMatchObject({ link_target: "notes/trace.txt", url: null });
      expect(page.url).toBe(`${base}/%3Cb%3Epage.html`);

      const auth = { authorization: `Bearer ${solverToken}` };
      expect(await (await fetch(base, { headers: auth })).json()).toEqual(listing);
      const traceBytes = await fetch(trace.url, { headers: auth });
      expect(await traceBytes.text()).toBe("tried 1234\n\n");
      // A checker's HTML is never rendered by the service's origin: a download, not a page.
      const html = await fetch(page.url, { headers: auth });
      expect(html.status).toBe(200);
      expect(html.headers.get("content-type")).toBe("application/octet-stream");
      expect(html.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''%3Cb%3Epage.html");
      expect(html.headers.get("x-content-type-options")).toBe("nosniff");
      expect(html.headers.get("x-svc-content-hash")).toBe(page.content_hash);
      // A symbolic link has no bytes; a path the checker did not leave is not found.
      for (const path of ["latest", "nothing-here"]) {
        const missing = await fetch(`${base}/${path}`, { headers: { ...auth, accept: "application/json" } });
        expect(missing.status).toBe(404);
        expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
      }
      // The run page links the listing.
      const runPage = await (await fetch(`${app.url}/verifications/${run.id}`, { headers: auth })).text();
      expect(runPage).toContain(`href="/verifications/${run.id}/stages/check_answer/evidence"`);

      // Nobody else reads them.
      const stranger = await newUser(db.sql);
      const strangerToken = (await issueToken(db.sql, stranger.user.handle, ["read"])).token;
      const refused = await fetch(base, { headers: { authorization: `Bearer ${strangerToken}` } });
      expect(refused.status).toBe(404);
    });
  });

  it("lists the solver's runs, and nobody else reads them", async () => {
    const { verifications } = await call("list_verifications", { problem: "small-sat" });
    expect(verifications.length).toBeGreaterThanOrEqual(2);
    const stranger = await newUser(db.sql);
    const token = (await issueToken(db.sql, stranger.user.handle, ["read"])).token;
    const other = await clientLines[0].connect(app.url, token);
    try {
      const result = await other.callTool("get_verification", { verification_run_id: verifications[0].id });
      expect(result.isError).toBe(true);
      expect(envelopeOf(result)).toMatchObject({ error: { code: "not_found" } });
    } finally {
      await other.close();
    }
    const page = await fetch(`${app.url}/verifications/${verifications[0].id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(page.status).toBe(404);
  });
});

/** valid-script whose checker also leaves evidence: a file in a folder, an HTML file, a symbolic link. */
function leavesEvidence(): Files {
  const base = fixturePackage("valid-script");
  const checker = Buffer.from(base["checker.py"]!).toString("utf8");
  const leaving = checker.replace(
    "def main() -> None:\n",
    `def main() -> None:
    evidence = pathlib.Path("/output/evidence")
    (evidence / "notes").mkdir(parents=True, exist_ok=True)
    answer = pathlib.Path(next(a for a in json.loads(pathlib.Path("/input/manifest.json").read_text())["artifacts"])["path"])
    (evidence / "notes" / "trace.txt").write_text("tried " + answer.read_text() + "\\n")
    (evidence / "<b>page.html").write_text("<script>alert(1)</script>")
    (evidence / "latest").symlink_to("notes/trace.txt")
`,
  );
  return editJson({ ...base, "checker.py": leaving }, "problem.json", (problem) => {
    problem.slug = "leaves-evidence";
  });
}

/** Waits until no implementation is pending conformance (the worker runs them after publication). */
async function conformanceSettled(services: Services): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const [row] = await services.sql`
      select count(*)::int as pending from verifier_implementations where conformance->>'status' = 'pending'`;
    if (row!.pending === 0) return;
    if (Date.now() > until) throw new Error("conformance did not settle");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
