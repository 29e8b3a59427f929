/**
 * bench/verify/sandbox-overhead: what the sandbox costs one trivial python checker.
 *
 * The same checker (read the manifest and the artifact, write result.json) runs N times each:
 * - direct: bare python3 on the host, on the same /input layout written to a temp directory
 *   (laying out the input and reading result.json included, as the backends do);
 * - bare bwrap: `bwrap <the backend's isolation flags> python3 -c pass`, the floor of any bwrap run;
 * - bwrap: the bwrap backend's full run (a warm sandbox from its pool: inputs written, the run sent
 *   to its waiting supervisor, report, output read), with the pool refilled between runs and back
 *   to back (then the refill competes for the CPU);
 * - bare docker run: `docker run --rm --network none <image> python3 -c pass`, the engine's floor;
 * - docker: the docker backend's full run through its warm pool (inputs written, exec, output
 *   read), measured with the pool refilled between runs (a service's runs arrive apart), and
 *   back to back (the pool's refill rate bounds it), when an engine answers and SVC_PYTHON_IMAGE
 *   (default svc-python:1) exists.
 * Prints per-run medians, the ratios, and `printSummary` lines. `npm run bench:sandbox`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bwrapIsolation,
  bwrapRuns,
  type CheckerJob,
  catalogueDigest,
  createBwrapBackend,
  createDockerBackend,
  layOutInput,
  PYTHON_RUNTIME,
  pingDocker,
  type RuntimeBinding,
  SANDBOX_UID,
  type SandboxBackend,
  sha256,
} from "@svc/app";
import Docker from "dockerode";
import { ms, percentile, printSummary, sample } from "../support/measure.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const PYTHON = "/usr/bin/python3";
const CHECKER = `import json, os
inp = os.environ.get("SVC_INPUT", "/input")
out = os.environ.get("SVC_OUTPUT", "/output")
m = json.load(open(inp + "/manifest.json"))
a = m["artifacts"][0]
value = int(open(a["path"].replace("/input", inp, 1)).read())
json.dump({"result": "verified" if value * value == 1522756 else "refuted"}, open(out + "/result.json", "w"))
`;
const answer = new TextEncoder().encode("1234\n");
const job: CheckerJob = {
  stage_key: "check_answer",
  result_kind: "pass_fail",
  implementation: {
    image_ref: PYTHON_RUNTIME,
    image_digest: catalogueDigest(PYTHON_RUNTIME),
    entrypoint: ["python3", "/input/checker/checker.py"],
    limits: { vcpu: 1, memory_mb: 256, disk_mb: 64, timeout_seconds: 30 },
    program: { filename: "checker.py", bytes: new TextEncoder().encode(CHECKER) },
  },
  artifacts: [
    {
      name: "answer",
      filename: "answer.txt",
      media_type: "text/plain",
      content_hash: sha256(answer),
      size_bytes: answer.length,
      bytes: answer,
    },
  ],
  reference: [],
  evidence_schema: null,
};

async function direct(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "svc-bench-direct-"));
  try {
    await layOutInput(job, join(root, "input"));
    mkdirSync(join(root, "output", "evidence"), { recursive: true });
    const run = spawnSync(PYTHON, [join(root, "input", "checker", "checker.py")], {
      env: { SVC_INPUT: join(root, "input"), SVC_OUTPUT: join(root, "output") },
    });
    if (run.status !== 0) throw new Error(run.stderr.toString());
    const result = JSON.parse(readFileSync(join(root, "output", "result.json"), "utf8"));
    if (result.result !== "verified") throw new Error("direct run did not verify");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function sandboxed(backend: SandboxBackend, binding: RuntimeBinding) {
  return async () => {
    const outcome = await backend.run(job, binding);
    if (outcome.result !== "verified")
      throw new Error(`${backend.name}: ${outcome.result}: ${outcome.reason}`);
  };
}

const median = (s: number[]) => percentile(s, 50);
const asRoot = process.getuid?.() === 0;

/** A command run to its end, failing the bench when it fails. */
function bare(command: string, args: string[], options: { uid?: number; gid?: number } = {}) {
  return async () => {
    const run = spawnSync(command, args, { env: {}, ...options });
    if (run.status !== 0) throw new Error(`${command}: ${run.stderr?.toString() ?? run.error}`);
  };
}

/** Latency samples of `run`, each after `settle` (a pool's background work) has finished. */
async function warmSamples(
  run: () => Promise<void>,
  settle: () => Promise<void>,
  runs: number,
  warmup: number,
): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs + warmup; i++) {
    await settle();
    const start = performance.now();
    await run();
    if (i >= warmup) samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b);
}

const rows: Array<[string, number, string]> = [];
const base = median(await sample(direct, RUNS, 3));
rows.push(["direct python3", base, ""]);
if (bwrapRuns()) {
  const bareBwrap = median(
    await sample(
      bare(
        "bwrap",
        [...bwrapIsolation(), "--", PYTHON, "-c", "pass"],
        asRoot ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {},
      ),
      RUNS,
      3,
    ),
  );
  const backend = createBwrapBackend();
  const run = sandboxed(backend, { backend: "bwrap", local_image: PYTHON });
  // Warm: the sandbox pool has refilled before each run, as when runs arrive apart.
  const bwrap = median(await warmSamples(run, () => backend.settled(), RUNS, 3));
  const backToBack = median(await sample(run, RUNS, 0));
  await backend.close();
  rows.push(
    ["bare bwrap", bareBwrap, ""],
    ["bwrap", bwrap, `${(bwrap / bareBwrap).toFixed(2)}x bare bwrap`],
    ["bwrap, back to back", backToBack, `${(backToBack / bareBwrap).toFixed(2)}x bare bwrap`],
  );
  printSummary({
    name: "sandbox bwrap trivial",
    figure: bwrap,
    baseline: bareBwrap,
    unit: "ms",
    baselineName: "bare bwrap python3 -c pass",
  });
} else console.log("bwrap: not available, skipped");
const docker = new Docker();
const image = process.env.SVC_PYTHON_IMAGE ?? "svc-python:1";
if (await pingDocker(docker)) {
  let id: string | undefined;
  try {
    id = (await docker.getImage(image).inspect()).Id;
  } catch {
    console.log(`docker: image ${image} missing (scripts/build-python-image.sh), skipped`);
  }
  if (id !== undefined) {
    const dockerRuns = Math.max(5, Math.floor(RUNS / 3));
    const bareDocker = median(
      await sample(
        bare("docker", ["run", "--rm", "--network", "none", id, "python3", "-c", "pass"]),
        dockerRuns,
        2,
      ),
    );
    const backend = createDockerBackend({ docker });
    const run = sandboxed(backend, { backend: "docker", local_image: id });
    // Warm: the pool has refilled before each run, as when runs arrive apart.
    const warm = await warmSamples(run, () => backend.settled(), RUNS, 3);
    const backToBack = median(await sample(run, dockerRuns, 0));
    await backend.close();
    rows.push(
      ["bare docker run", bareDocker, ""],
      ["docker", median(warm), `${(median(warm) / bareDocker).toFixed(2)}x bare docker run`],
      ["docker, back to back", backToBack, `${(backToBack / bareDocker).toFixed(2)}x bare docker run`],
    );
    printSummary({
      name: "sandbox docker trivial p50",
      figure: median(warm),
      baseline: bareDocker,
      unit: "ms",
      baselineName: "bare docker run",
    });
  }
} else console.log("docker: no engine answers, skipped");

console.log(
  `sandbox overhead, trivial python checker, median of ${RUNS} runs (bare docker run, docker back to back: a third as many)`,
);
for (const [name, value, note] of rows) {
  console.log(
    `  ${name.padEnd(22)} ${ms(value).padStart(10)}   ${name === "direct python3" ? "" : `${(value / base).toFixed(2)}x direct`}${note ? `, ${note}` : ""}`,
  );
}
