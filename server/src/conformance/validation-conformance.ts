import type { CheckerLimits, FileTree } from "@svc/app";
import { checkerImplementation, runConformance, sha256 } from "@svc/app";
import type { Plan, ValidationConformance } from "@svc/schemas";
import type { Services } from "../core/services/services.ts";
import { resolveBinding } from "../verification/resolve-binding.ts";

/**
 * Runs each planned implementation's fixtures on the uploaded files, at validation (spec 2.2):
 * what publication's own conformance run will find, shown before anything is published. Stages
 * whose image cannot run here yet (an unbound runtime, a custom image not provisioned) have no
 * entries; `images` says why, and so do stages whose limits are over the deployment's ceilings
 * (the validation's `unsupported_runtime` errors). Files are found by content hash, wherever the package
 * keeps them. Each fixture queues for the sandbox budget as the caller's work. `which` picks the
 * builtin stages (run in process, at once) or the sandboxed ones (queued; see
 * queueValidationConformance).
 */
export async function validationConformance(
  services: Services,
  userId: string,
  plan: Plan,
  tree: FileTree,
  which: "builtin" | "sandboxed",
): Promise<ValidationConformance[]> {
  const engines = await services.sandbox.engines();
  const bytesOf = treeBytesByHash(tree);
  const entries: ValidationConformance[] = [];
  for (const implementation of Object.values(plan.verifier_implementations)) {
    const resolution = await resolveBinding(services.sql, engines, implementation.runtime.image_ref);
    if (resolution.kind !== "ready") continue;
    if ((resolution.binding === null) !== (which === "builtin")) continue;
    if (overCeiling(implementation.limits, services.sandboxBudget.ceilings)) continue;
    const program = implementation.program ? await bytesOf(implementation.program.content_hash) : null;
    for (const stage of implementation.stages) {
      const contract = plan.verifier_contracts[stage.verifier_contract]?.document;
      if (!contract) continue;
      const report = await runConformance({
        contract,
        stageKey: stage.stage_key,
        implementation: checkerImplementation(implementation, program),
        readBytes: async (file) => {
          if (!file.content_hash) throw new Error(`fixture file ${file.filename} states no content_hash`);
          return await bytesOf(file.content_hash);
        },
        run: (job) => services.sandbox.run(job, resolution.binding, { user_id: userId }),
      });
      for (const result of report.results) {
        entries.push({
          stage_key: stage.stage_key,
          image_ref: implementation.runtime.image_ref,
          fixture: result.fixture,
          expected: result.expected,
          actual: result.actual,
          passed: result.passed,
          implementation: implementation.content_hash,
          program: implementation.program?.filename ?? null,
          detail: result.detail,
          log_tail: result.passed ? "" : result.log_tail,
        });
      }
    }
  }
  return entries;
}

function overCeiling(limits: CheckerLimits, ceilings: CheckerLimits): boolean {
  return (Object.keys(ceilings) as (keyof CheckerLimits)[]).some((field) => limits[field] > ceilings[field]);
}

/**
 * Whether the plan has sandboxed fixtures this host would run at validation: implementations
 * whose image can run here, within the ceilings, on stages with fixtures.
 */
export async function hasSandboxedFixtures(services: Services, plan: Plan): Promise<boolean> {
  const engines = await services.sandbox.engines();
  for (const implementation of Object.values(plan.verifier_implementations)) {
    const resolution = await resolveBinding(services.sql, engines, implementation.runtime.image_ref);
    if (resolution.kind !== "ready" || resolution.binding === null) continue;
    if (overCeiling(implementation.limits, services.sandboxBudget.ceilings)) continue;
    for (const stage of implementation.stages) {
      const contract = plan.verifier_contracts[stage.verifier_contract]?.document;
      if (contract?.conformance_fixtures.some((fixture) => fixture.stage_key === stage.stage_key))
        return true;
    }
  }
  return false;
}

/** Reads package files by content hash, hashing only files of a size not yet indexed. */
function treeBytesByHash(tree: FileTree): (hash: string) => Promise<Uint8Array> {
  const found = new Map<string, Uint8Array>();
  const hashed = new Set<string>();
  return async (hash) => {
    const known = found.get(hash);
    if (known) return known;
    for (const path of tree.paths()) {
      if (hashed.has(path)) continue;
      hashed.add(path);
      const bytes = await tree.read(path);
      const fileHash = sha256(bytes);
      found.set(fileHash, bytes);
      if (fileHash === hash) return bytes;
    }
    throw new Error(`the package holds no file with content ${hash}`);
  };
}
