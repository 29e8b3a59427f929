import type { Plan, PlanProblem, VerifierContractFile } from "@svc/schemas";
import { sha256 } from "../hash/sha256.ts";
import type { CheckerJob, CheckerOutcome } from "../sandbox/checker-job.ts";
import { type ConformanceReport, type FixtureResult, runConformance } from "../sandbox/run-conformance.ts";
import { checkerImplementation } from "../sandbox/stage-job.ts";
import type { FileTree } from "../tree/file-tree.ts";

/** One sandbox stage's conformance run in a linted package. */
export interface StageConformance {
  problem_dir: string;
  contract: string;
  stage_key: string;
  image_ref: string;
  report: ConformanceReport;
}

/**
 * Runs the conformance fixtures of every sandbox stage a linted package plans, once per
 * (contract, implementation, stage) even when a campaign's problems share them. Script bytes and
 * fixture files are read from the package: a script next to the contract (the problem's
 * directory, else the campaign root), fixtures under the problem's fixtures/ (else the
 * campaign's) or reference/, chosen by their stated hash.
 */
export async function runPackageConformance(
  tree: FileTree,
  plan: Plan,
  run: (job: CheckerJob) => Promise<CheckerOutcome>,
  onResult?: (stage: { contract: string; stage_key: string }, result: FixtureResult) => void,
): Promise<StageConformance[]> {
  const done = new Set<string>();
  const stages: StageConformance[] = [];
  for (const problem of plan.problems) {
    const contractHash = problem.verifier_contract;
    if (contractHash === null) continue;
    const planned = plan.verifier_contracts[contractHash];
    if (planned === undefined) continue;
    const contract = planned.document as VerifierContractFile;
    for (const implHash of problem.verifier_implementations) {
      const impl = plan.verifier_implementations[implHash];
      if (impl === undefined) continue;
      for (const use of impl.stages.filter((s) => s.verifier_contract === contractHash)) {
        const key = `${contractHash} ${implHash} ${use.stage_key}`;
        if (done.has(key)) continue;
        done.add(key);
        const programBytes =
          impl.program === null
            ? null
            : await findFile(
                tree,
                candidates(problem, impl.program.filename, ["", ""]),
                impl.program.content_hash,
              );
        const implementation = checkerImplementation(impl, programBytes);
        const report = await runConformance({
          contract,
          stageKey: use.stage_key,
          implementation,
          readBytes: async (ref) => {
            const bytes = await findFile(
              tree,
              candidates(problem, ref.filename, ["fixtures/", "reference/"]),
              ref.content_hash,
            );
            if (bytes === null) throw new Error(`${ref.filename} is not in the package`);
            return bytes;
          },
          run,
          onResult: (result) => onResult?.({ contract: contractHash, stage_key: use.stage_key }, result),
        });
        stages.push({
          problem_dir: problem.dir,
          contract: contractHash,
          stage_key: use.stage_key,
          image_ref: impl.runtime.image_ref,
          report,
        });
      }
    }
  }
  return stages;
}

/** Package paths where a file may be, the problem's own before the campaign root's. */
function candidates(problem: PlanProblem, filename: string, folders: string[]): string[] {
  const dir = problem.dir === "" || problem.dir === "." ? "" : `${problem.dir.replace(/\/$/, "")}/`;
  const paths: string[] = [];
  for (const folder of folders) paths.push(`${dir}${folder}${filename}`, `${folder}${filename}`);
  return [...new Set(paths)];
}

/** The first candidate that exists and, when a hash is stated, has it. */
async function findFile(
  tree: FileTree,
  paths: string[],
  contentHash: string | undefined,
): Promise<Uint8Array | null> {
  let fallback: Uint8Array | null = null;
  for (const path of paths) {
    if (tree.size(path) === undefined) continue;
    const bytes = await tree.read(path);
    if (contentHash === undefined || sha256(bytes) === contentHash) return bytes;
    fallback ??= bytes;
  }
  return fallback;
}
