import { pointer } from "@svc/schemas";
import type { ContractEntry } from "./check-contract.ts";
import type { LintContext } from "./lint-context.ts";

/**
 * Lint pass 4, fixtures: every conformance fixture of a contract as seen from one problem.
 * Fixture files are found under the problem's `fixtures/` (or the campaign's, when the problem
 * has none) or under the problem's `reference/`; their hashes and sizes must match the files.
 */
export async function checkFixtures(
  ctx: LintContext,
  contract: ContractEntry,
  problemPrefix: string,
  campaignPrefix: string | null,
): Promise<void> {
  const { file, contract: doc } = contract;
  const ownFixtures = ctx.under(`${problemPrefix}fixtures/`).length > 0;
  const fixturesPrefix = ownFixtures || campaignPrefix === null ? problemPrefix : campaignPrefix;
  // A campaign's contract is checked for each of its problems. When every fixture file was found
  // under the shared fixtures/ (or is refused whatever the problem), what another problem would
  // report is what was reported: the same records, which the context keeps once.
  const shared = `${file}\0${fixturesPrefix}`;
  if (ctx.sharedFixtureChecks.has(shared)) return;
  let problemSpecific = false;
  const sandboxStages = new Set(doc.stages.filter((s) => s.kind === "sandbox").map((s) => s.key));
  const slots = new Set(doc.reference_inputs.map((s) => s.key));
  const roles = new Set(doc.submission_requirements.required_artifacts.map((a) => a.role));
  const seenKeys = new Set<string>();

  const locate = (filename: string): string | undefined => {
    const found = [`${fixturesPrefix}fixtures/${filename}`, `${problemPrefix}reference/${filename}`].find(
      (p) => ctx.has(p),
    );
    if (found === undefined || found.startsWith(`${problemPrefix}reference/`)) problemSpecific = true;
    return found;
  };

  const checkInput = async (
    at: string,
    input: { filename: string; content_hash?: string; size_bytes?: number },
  ): Promise<void> => {
    if (input.filename.endsWith(".link.json")) {
      ctx.error(
        file,
        `${at}/filename`,
        "binding_error",
        `fixtures bind bytes only: "${input.filename}" is a link; put the bytes under fixtures/`,
      );
      return;
    }
    const path = safeRelative(input.filename) ? locate(input.filename) : undefined;
    if (path === undefined) {
      problemSpecific = true; // the message names the problem's reference/
      ctx.error(
        file,
        `${at}/filename`,
        "not_found",
        `fixture file "${input.filename}" is not under ${fixturesPrefix}fixtures/ or ${problemPrefix}reference/`,
      );
      return;
    }
    const content_hash = await ctx.hash(path);
    const size_bytes = ctx.tree.size(path) ?? 0;
    ctx.fix({ file, path: at, content_hash, size_bytes });
    if (input.content_hash === undefined || input.size_bytes === undefined) {
      ctx.error(
        file,
        at,
        "hash_mismatch",
        `content_hash and size_bytes of "${input.filename}" are not stated; run \`svc lint --fix\` to write them`,
      );
      return;
    }
    if (input.content_hash !== content_hash) {
      ctx.error(
        file,
        `${at}/content_hash`,
        "hash_mismatch",
        `${path} hashes to ${content_hash}, not ${input.content_hash}; run \`svc lint --fix\` after checking the file is the one you meant`,
      );
    }
    if (input.size_bytes !== size_bytes) {
      ctx.error(
        file,
        `${at}/size_bytes`,
        "hash_mismatch",
        `${path} is ${size_bytes} bytes, not ${input.size_bytes}; run \`svc lint --fix\``,
      );
    }
  };

  for (const [index, fixture] of doc.conformance_fixtures.entries()) {
    const at = (...rest: Array<string | number>) => pointer("conformance_fixtures", index, ...rest);
    if (seenKeys.has(fixture.key)) {
      ctx.error(
        file,
        at("key"),
        "schema_violation",
        `fixture key "${fixture.key}" appears twice; keys are unique`,
      );
    }
    seenKeys.add(fixture.key);
    if (!sandboxStages.has(fixture.stage_key)) {
      ctx.error(
        file,
        at("stage_key"),
        "not_found",
        `"${fixture.stage_key}" is not a sandbox stage of this contract (sandbox stages: ${[...sandboxStages].join(", ") || "none"})`,
      );
    }
    for (const [key, input] of Object.entries(fixture.inputs.reference)) {
      if (!slots.has(key)) {
        ctx.error(
          file,
          at("inputs", "reference", key),
          "not_found",
          `slot "${key}" is not declared in reference_inputs`,
        );
        continue;
      }
      await checkInput(at("inputs", "reference", key), input);
    }
    for (const [j, input] of fixture.inputs.artifacts.entries()) {
      if (!roles.has(input.role)) {
        ctx.error(
          file,
          at("inputs", "artifacts", j, "role"),
          "not_found",
          `artifact role "${input.role}" is not declared in submission_requirements.required_artifacts`,
        );
        continue;
      }
      await checkInput(at("inputs", "artifacts", j), input);
    }
  }

  for (const [index, stage] of doc.stages.entries()) {
    if (stage.kind !== "sandbox") continue;
    const expected = new Set(
      doc.conformance_fixtures.filter((f) => f.stage_key === stage.key).map((f) => f.expected_result),
    );
    const missing = (["verified", "refuted"] as const).filter((r) => !expected.has(r));
    if (missing.length > 0) {
      ctx.note(
        file,
        pointer("stages", index),
        "fixture_coverage",
        `sandbox stage "${stage.key}" has no ${missing.join(" or ")} fixture; one of each is the norm, so conformance proves the checker can say both`,
      );
    }
  }
  if (!problemSpecific) ctx.sharedFixtureChecks.add(shared);
}

function safeRelative(name: string): boolean {
  return (
    name.length > 0 &&
    !name.startsWith("/") &&
    !name.split("/").some((s) => s === ".." || s === "." || s === "")
  );
}
