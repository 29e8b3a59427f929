/**
 * The hostile checkers of bench/hostile, run through the real service: problems whose checker
 * behaves on the conformance fixtures and attacks the host on one answer (666), published through
 * the real upload flow, then BENCH_CHECKER_RUNS (default 2) submissions of that answer to each,
 * verified by the server's worker in its sandbox budget:
 *
 * - evil/holds-memory: holds 900 MiB (memory_mb 1200);
 * - evil/disk-fill: writes until its disk_mb 1100 is full;
 * - evil/evidence-flood: writes 1,000 MB of evidence (disk_mb 1100).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { memoryTree, openServiceClient, type ServiceClient, sha256, zipTree } from "@svc/app";

const RUNS = Number(process.env.BENCH_CHECKER_RUNS ?? 2);
const FIXTURE = new URL("../../app/test/fixtures/lint/valid-script/", import.meta.url).pathname;

const ATTACKS: Record<string, { code: string; limits: Record<string, number> }> = {
  "holds-memory": {
    code: `held = bytearray(900 * 2**20)\n        held[::4096] = b"x" * len(held[::4096])`,
    limits: { memory_mb: 1200, timeout_seconds: 60 },
  },
  "disk-fill": {
    code: `with open("/output/evidence/fill", "wb") as f:\n            while True:\n                f.write(b"x" * 2**20)`,
    limits: { disk_mb: 1100, timeout_seconds: 60 },
  },
  "evidence-flood": {
    code: `with open("/output/evidence/flood", "wb") as f:\n            for _ in range(1000):\n                f.write(b"x" * 2**20)`,
    limits: { disk_mb: 1100, timeout_seconds: 60 },
  },
};

function fixtureFiles(dir = FIXTURE, prefix = ""): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(files, fixtureFiles(path, `${prefix}${name}/`));
    else files[`${prefix}${name}`] = readFileSync(path, "utf8");
  }
  return files;
}

/** valid-script whose checker attacks the host when the answer is 666. */
function attackPackage(name: string): Record<string, string> {
  const files = fixtureFiles();
  const attack = ATTACKS[name]!;
  files["checker.py"] = files["checker.py"]!.replace(
    "    if value * value == TARGET:",
    `    if value == 666:\n        ${attack.code}\n    if value * value == TARGET:`,
  );
  const problem = JSON.parse(files["problem.json"]!);
  problem.slug = `evil-${name}`;
  files["problem.json"] = JSON.stringify(problem, null, 2);
  const contract = JSON.parse(files["verifier-contract.json"]!);
  contract.title = `Hostile checker: ${name}`;
  contract.stages[0].limits = attack.limits;
  files["verifier-contract.json"] = JSON.stringify(contract, null, 2);
  return files;
}

async function publish(client: ServiceClient, files: Record<string, string>): Promise<void> {
  const archive = await zipTree(memoryTree(files));
  const requested = await client.callTool("request_authoring_upload", {
    size_bytes: archive.byteLength,
    content_hash: sha256(archive),
  });
  await client.putUpload(String(requested.upload_url), archive);
  let validation = await client.callTool("validate_authoring_upload", { upload_id: requested.upload_id });
  while (validation.conformance_state === "pending") {
    await new Promise((resolve) => setTimeout(resolve, 500));
    validation = await client.callTool("validate_authoring_upload", { upload_id: requested.upload_id });
  }
  if (validation.valid !== true) throw new Error(`invalid: ${JSON.stringify(validation).slice(0, 800)}`);
  await client.callTool("publish_authoring_upload", {
    upload_id: requested.upload_id,
    plan_hash: validation.plan_hash,
  });
}

export interface CheckerFigures {
  /** Outcome of each run, e.g. "evil-disk-fill: inconclusive". */
  outcomes: string[];
  /** Wall time from submission to finished, ms. */
  durations: number[];
}

/** Publishes the hostile problems; returns a function that submits and waits for their runs. */
export async function prepareCheckers(
  server: string,
  token: string,
): Promise<{ runs: number; run: () => Promise<CheckerFigures> }> {
  const client = openServiceClient({ server, token });
  for (const name of Object.keys(ATTACKS)) await publish(client, attackPackage(name));
  const run = async (): Promise<CheckerFigures> => {
    const figures: CheckerFigures = { outcomes: [], durations: [] };
    const jobs = Object.keys(ATTACKS).flatMap((name) => Array.from({ length: RUNS }, () => `evil-${name}`));
    await Promise.all(
      jobs.map(async (problem) => {
        const start = performance.now();
        const { attempt } = (await client.callTool("start_attempt", { problem })) as {
          attempt: { id: string };
        };
        const { artifact } = (await client.callTool("upload_artifact", {
          attempt_id: attempt.id,
          filename: "answer.txt",
          content_text: "666\n",
        })) as { artifact: { id: string } };
        const created = await client.callTool("create_submission", {
          attempt_id: attempt.id,
          artifacts: [{ role: "answer", artifact_id: artifact.id }],
        });
        for (;;) {
          const { verification } = (await client.callTool("get_verification", {
            verification_run_id: created.verification_run_id,
          })) as { verification: { status: string; result: string | null } };
          if (verification.status === "finished") {
            figures.outcomes.push(`${problem}: ${verification.result}`);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        figures.durations.push(performance.now() - start);
      }),
    );
    await client.close();
    return figures;
  };
  return { runs: Object.keys(ATTACKS).length * RUNS, run };
}
