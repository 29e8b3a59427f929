/**
 * bench/verify/sandbox-overhead: what the sandbox costs one trivial python checker.
 *
 * The same checker (read the manifest and the artifact, write result.json) runs N times each:
 * - direct: bare python3 on the host, on the same /input layout written to a temp directory
 *   (laying out the input and reading result.json included, as the backends do);
 * - bwrap: the bwrap backend's full run (namespaces, supervisor, tmpfs /output, report);
 * - docker: the docker backend's full run (volume, container, exec, archive, removal), when an
 *   engine answers and SVC_PYTHON_IMAGE (default svc-python:1) exists.
 * Prints per-run medians and the ratios bwrap/direct and docker/direct. `npm run bench:sandbox`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bwrapRuns,
  type CheckerJob,
  catalogueDigest,
  createBwrapBackend,
  createDockerBackend,
  layOutInput,
  PYTHON_RUNTIME,
  pingDocker,
  type RuntimeBinding,
  type SandboxBackend,
  sha256,
} from "@svc/app";
import Docker from "dockerode";
import { ms, percentile, sample } from "../support/measure.ts";

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
const rows: Array<[string, number]> = [];
const base = median(await sample(direct, RUNS, 3));
rows.push(["direct python3", base]);
if (bwrapRuns()) {
  rows.push([
    "bwrap",
    median(await sample(sandboxed(createBwrapBackend(), { backend: "bwrap", local_image: PYTHON }), RUNS, 3)),
  ]);
} else console.log("bwrap: not available, skipped");
const docker = new Docker();
const image = process.env.SVC_PYTHON_IMAGE ?? "svc-python:1";
if (await pingDocker(docker)) {
  try {
    const id = (await docker.getImage(image).inspect()).Id;
    const dockerRuns = Math.max(5, Math.floor(RUNS / 3));
    rows.push([
      "docker",
      median(
        await sample(
          sandboxed(createDockerBackend({ docker }), { backend: "docker", local_image: id }),
          dockerRuns,
          2,
        ),
      ),
    ]);
  } catch {
    console.log(`docker: image ${image} missing (scripts/build-python-image.sh), skipped`);
  }
} else console.log("docker: no engine answers, skipped");

console.log(`sandbox overhead, trivial python checker, median of ${RUNS} runs (docker: a third as many)`);
for (const [name, value] of rows) {
  console.log(
    `  ${name.padEnd(16)} ${ms(value).padStart(10)}   ${name === "direct python3" ? "" : `${(value / base).toFixed(2)}x direct`}`,
  );
}
