import type { Plan, PlanProblem, ReferenceInputSlot, ValidationError } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { problemFile } from "./package-files.ts";

/**
 * The binding rules of spec 2.3 for problems that pin a published Contract (`verifier_contract`
 * a `vct_` id): lint, having no server, takes their `reference/` files as written, so validation
 * checks them against the published Contract's slots here. Every required slot bound, no unknown
 * slot, media type and size within the slot, a sealed slot neither linked nor bound without a
 * `sealing` policy, and a policy only when a sealed slot is bound. (Each slot bound at most once is
 * already a lint rule.) An unknown contract id
 * is checkPublishedReferences' `not_found`, so it is skipped here.
 */
export async function checkPublishedContractBindings(sql: Sql, plan: Plan): Promise<ValidationError[]> {
  const pinning = plan.problems.filter((p) => p.published_verifier_contract !== null);
  if (pinning.length === 0) return [];
  const ids = [...new Set(pinning.map((p) => p.published_verifier_contract!))];
  const rows = await sql<{ id: string; slots: ReferenceInputSlot[] | null }[]>`
    select id, document->'reference_inputs' as slots from verifier_contracts where id = any(${ids})`;
  const slotsOf = new Map(rows.map((row) => [row.id, row.slots ?? []]));
  return pinning.flatMap((problem) => {
    const slots = slotsOf.get(problem.published_verifier_contract!);
    return slots ? bindingErrors(problem, slots) : [];
  });
}

function bindingErrors(problem: PlanProblem, slots: readonly ReferenceInputSlot[]): ValidationError[] {
  const contract = problem.published_verifier_contract!;
  const errors: ValidationError[] = [];
  const error = (file: string, path: string, message: string) =>
    errors.push({ file, path, code: "binding_error", message });
  const bySlotKey = new Map(slots.map((slot) => [slot.key, slot]));

  for (const binding of problem.reference_inputs) {
    const file = problemFile(
      problem.dir,
      binding.url === null ? `reference/${binding.filename}` : `reference/${binding.key}.link.json`,
    );
    const slot = bySlotKey.get(binding.key);
    if (!slot) {
      const declared = slots.map((s) => `"${s.key}"`).join(", ") || "none";
      error(
        file,
        "",
        `${contract} declares no slot "${binding.key}" (its slots: ${declared}); rename or remove the file`,
      );
      continue;
    }
    if (!slot.media_types.includes(binding.media_type)) {
      error(
        file,
        binding.url === null ? "" : "/media_type",
        `slot "${slot.key}" of ${contract} accepts ${slot.media_types.join(", ")}, not ${binding.media_type}; give the file an extension of an accepted type`,
      );
    }
    if (binding.size_bytes > slot.max_bytes) {
      error(
        file,
        binding.url === null ? "" : "/size_bytes",
        `slot "${slot.key}" of ${contract} takes at most ${slot.max_bytes} bytes; this binding has ${binding.size_bytes}`,
      );
    }
    if (slot.sealed && binding.url !== null) {
      error(
        file,
        "/url",
        `slot "${slot.key}" of ${contract} is sealed, and a sealed slot cannot be bound by link; bind the bytes`,
      );
    } else if (slot.sealed && problem.sealing === null) {
      error(
        problemFile(problem.dir, "problem.json"),
        "",
        `reference/${binding.filename} binds slot "${slot.key}", which ${contract} seals: add a "sealing" policy to problem.json`,
      );
    }
  }

  const bound = new Set(problem.reference_inputs.map((b) => b.key));
  if (problem.sealing !== null && !slots.some((slot) => slot.sealed && bound.has(slot.key))) {
    error(
      problemFile(problem.dir, "problem.json"),
      "/sealing",
      `sealing applies only when a reference file binds a slot the contract seals, and ${contract} seals none of the bound slots; remove "sealing" or bind a sealed slot`,
    );
  }
  for (const slot of slots) {
    if (slot.required && !bound.has(slot.key)) {
      error(
        problemFile(problem.dir, "problem.json"),
        "/verifier_contract",
        `${contract} requires slot "${slot.key}" (${slot.media_types.join(", ")}); add reference/${slot.key}.<ext>`,
      );
    }
  }
  return errors;
}
