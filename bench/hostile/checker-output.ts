/**
 * bench/hostile/checker-output: what a checker's output costs the host's memory. Runs checkers in
 * this process through the real sandbox backends (bubblewrap, and Docker when an engine answers
 * with SVC_PYTHON_IMAGE, default svc-python:1), samples this process's resident memory every
 * 10 ms while each runs, and prints the peak growth over the RSS before the run:
 *
 * - baseline: a checker writing 1 MB of evidence (disk_mb 1100);
 * - evil/evidence-flood: a checker writing 1,000 MB of evidence (disk_mb 1100): the service keeps
 *   64 MiB of a run's output, so the run is inconclusive (limit output) and the host's memory must
 *   not grow by anything like 1,000 MB;
 * - evil/disk-fill: a checker writing until its disk_mb 1100 is full (limit disk).
 *
 * Run with `npm run bench:hostile-checkers`. Before this change the backends held /output in a
 * tmpfs (host RAM) and copied it whole into the host's heap.
 */
import { readFileSync } from "node:fs";
import {
  bwrapRuns,
  catalogueDigest,
  createBwrapBackend,
  createDockerBackend,
  PYTHON_RUNTIME,
  pingDocker,
  type SandboxBackend,
} from "@svc/app";
import Docker from "dockerode";
import { printSummary } from "../support/measure.ts";

const DISK_MB = 1100;

function job(megabytes: number, fillDisk = false) {
  const source = `import json, pathlib
chunk = b"x" * (1024 * 1024)
with open("/output/evidence/blob", "wb") as f:
    ${fillDisk ? "while True" : `for _ in range(${megabytes})`}:
        f.write(chunk)
pathlib.Path("/output/result.json").write_text(json.dumps({"result": "verified", "summary": "wrote"}))
`;
  return {
    stage_key: "check_answer",
    result_kind: "pass_fail" as const,
    implementation: {
      image_ref: PYTHON_RUNTIME,
      image_digest: catalogueDigest(PYTHON_RUNTIME),
      entrypoint: ["python3", "/input/checker/checker.py"],
      limits: { vcpu: 1, memory_mb: 256, disk_mb: DISK_MB, timeout_seconds: 120 },
      program: { filename: "checker.py", bytes: new TextEncoder().encode(source) },
    },
    artifacts: [],
    reference: [],
    evidence_schema: null,
  };
}

function rssMiB(): number {
  const line = readFileSync("/proc/self/status", "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

async function measure(
  backend: SandboxBackend,
  binding: { backend: "bwrap" | "docker"; local_image: string },
  work: ReturnType<typeof job>,
) {
  globalThis.gc?.();
  const before = rssMiB();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB());
  }, 10);
  const started = performance.now();
  const outcome = await backend.run(work, binding);
  clearInterval(sampler);
  peak = Math.max(peak, rssMiB());
  return {
    growth: peak - before,
    seconds: (performance.now() - started) / 1000,
    outcome: `${outcome.result}${outcome.limit ? ` (limit ${outcome.limit})` : ""}`,
  };
}

const backends: Array<{
  name: string;
  backend: SandboxBackend;
  binding: { backend: "bwrap" | "docker"; local_image: string };
}> = [];
if (bwrapRuns())
  backends.push({
    name: "bwrap",
    backend: createBwrapBackend(),
    binding: { backend: "bwrap", local_image: "/usr/bin/python3" },
  });
const docker = new Docker();
const image = process.env.SVC_PYTHON_IMAGE ?? "svc-python:1";
if (
  (await pingDocker(docker)) &&
  (await docker
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    ))
) {
  backends.push({
    name: "docker",
    backend: createDockerBackend({ docker }),
    binding: { backend: "docker", local_image: image },
  });
}
if (backends.length === 0) {
  console.log("no sandbox backend here (bubblewrap or Docker with the python image): nothing to measure");
  process.exit(0);
}

console.log(
  `checker output vs host memory, disk_mb ${DISK_MB}, loop-mounted disk: ${process.getuid?.() === 0 && process.env.SVC_SANDBOX_LOOP_DISK !== "0"}`,
);
for (const { name, backend, binding } of backends) {
  const baseline = await measure(backend, binding, job(1));
  const flood = await measure(backend, binding, job(1000));
  const fill = await measure(backend, binding, job(0, true));
  const row = (label: string, m: typeof baseline) =>
    `  ${name} ${label.padEnd(30)} ${m.outcome.padEnd(30)} ${m.seconds.toFixed(1).padStart(5)} s  host RSS +${m.growth.toFixed(1)} MiB`;
  console.log(row("baseline (1 MB evidence)", baseline));
  console.log(
    `${row("evil/evidence-flood (1,000 MB)", flood)}  ratio ${(flood.growth / Math.max(baseline.growth, 1)).toFixed(1)}x baseline`,
  );
  console.log(
    `${row(`evil/disk-fill (${DISK_MB} MB)`, fill)}  ratio ${(fill.growth / Math.max(baseline.growth, 1)).toFixed(1)}x baseline`,
  );
  // Growth under 1 MiB is noise: the baseline is floored at 1 MiB, as in the ratios above.
  const summary = (label: string, m: typeof baseline) =>
    printSummary({
      name: `hostile-checkers ${name} ${label} host RSS growth`,
      figure: m.growth,
      baseline: Math.max(baseline.growth, 1),
      unit: "MiB",
      baselineName: "1 MB evidence",
    });
  summary("evidence flood", flood);
  summary("disk fill", fill);
  await backend.close?.();
}
