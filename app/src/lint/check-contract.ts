import {
  type ContractStage,
  type ImplementationSource as ImplementationProvenance,
  pointer,
  type StageLimits,
  type VerifierContractFile,
  type VerifierImplementationFile,
} from "@svc/schemas";
import {
  BUILTINS,
  CHECKER_MOUNT,
  catalogueDigest,
  DEFAULT_LIMITS,
  MAX_SCRIPT_BYTES,
  PYTHON_RUNTIME,
  parseImplementation,
} from "../catalogue/implementation-catalogue.ts";
import { type ContentHash, hashJson } from "../hash/sha256.ts";
import { checkImplementationSource } from "./check-implementation-source.ts";
import type { ProtocolEntry } from "./check-protocols.ts";
import type { LintContext } from "./lint-context.ts";

/** An implementation as the plan and the service record it (spec 2.2, without ids). */
export interface ImplementationEntry {
  stageKey: string;
  runtime: { kind: "container"; image_ref: string; image_digest: ContentHash };
  entrypoint: string[];
  limits: { vcpu: number; memory_mb: number; disk_mb: number; timeout_seconds: number; network: "none" };
  program: { filename: string; content_hash: ContentHash; size_bytes: number } | null;
  /** Package-relative path of the script, for the service to store its bytes. */
  programFile: string | null;
  contentHash: ContentHash;
  /** The `source` verifier-implementation.json states; absent when it states none. */
  source?: ImplementationProvenance;
}

/** A verifier-contract.json that passed pass 4. */
export interface ContractEntry {
  file: string;
  /** Directory prefix of the contract file: where `./checker.py` and `./review-protocol.json` resolve. */
  prefix: string;
  contract: VerifierContractFile;
  /** The document as planned and hashed: local protocol references replaced by the protocol's hash. */
  document: VerifierContractFile;
  contentHash: ContentHash;
  implementations: ImplementationEntry[];
  /** The local protocol each review stage pins, by stage key. */
  protocols: Map<string, ProtocolEntry>;
}

const SANDBOX_ONLY = ["implementation", "reference_input_slots", "result_kind", "limits"] as const;

/**
 * Lint pass 4 for one verifier-contract.json: stage fields by kind, implementations resolved and
 * validated, the local protocol reference resolved (`protocol` is the review-protocol.json that
 * "./review-protocol.json" means here, null when there is none; its entry is undefined when it
 * failed pass 3). Fixtures are checked per problem
 * (check-fixtures.ts) because their files resolve against the problem's directories.
 */
export async function checkContract(
  ctx: LintContext,
  prefix: string,
  protocol: { file: string; entry: ProtocolEntry | undefined } | null,
): Promise<ContractEntry | undefined> {
  const file = `${prefix}verifier-contract.json`;
  const contract = await ctx.schemaFile<VerifierContractFile>(file, "verifier-contract");
  if (!contract) return undefined;
  const before = ctx.errors.length;

  reportDuplicates(
    ctx,
    file,
    "stages",
    contract.stages.map((s) => s.key),
    "key",
    "stage key",
  );
  reportDuplicates(
    ctx,
    file,
    "reference_inputs",
    contract.reference_inputs.map((s) => s.key),
    "key",
    "slot key",
  );
  reportDuplicates(
    ctx,
    file,
    "submission_requirements/required_artifacts",
    contract.submission_requirements.required_artifacts.map((a) => a.role),
    "role",
    "artifact role",
  );
  if (contract.result_kind === "score" && contract.score === null) {
    ctx.error(
      file,
      "/score",
      "schema_violation",
      '"result_kind": "score" needs a "score" object {unit, description}',
    );
  }
  if (contract.result_kind === "pass_fail" && contract.score !== null) {
    ctx.error(file, "/score", "schema_violation", '"score" must be null when "result_kind" is "pass_fail"');
  }

  const sealed = contract.reference_inputs.some((slot) => slot.sealed);
  const slotKeys = new Set(contract.reference_inputs.map((slot) => slot.key));
  const roles = new Set(contract.submission_requirements.required_artifacts.map((a) => a.role));
  const implementations: ImplementationEntry[] = [];
  const protocols = new Map<string, ProtocolEntry>();
  const separate = await readImplementationFile(ctx, prefix, contract);

  for (const [index, stage] of contract.stages.entries()) {
    const at = (...rest: Array<string | number>) => pointer("stages", index, ...rest);
    checkKindFields(ctx, file, stage, at);
    if (stage.kind === "review" && stage.review_protocol_id === "./review-protocol.json") {
      if (!protocol) {
        ctx.error(
          file,
          at("review_protocol_id"),
          "not_found",
          `"./review-protocol.json" does not exist next to ${file}; add it or name a published rpt_ id`,
        );
      } else if (protocol.entry) {
        protocols.set(stage.key, protocol.entry);
      }
    }
    if (stage.kind !== "sandbox") continue;
    for (const [j, key] of (stage.reference_input_slots ?? []).entries()) {
      if (!slotKeys.has(key)) {
        ctx.error(
          file,
          at("reference_input_slots", j),
          "not_found",
          `slot "${key}" is not declared in reference_inputs (declared: ${[...slotKeys].join(", ") || "none"})`,
        );
      }
    }
    if (sealed && stage.reference_input_slots == null) {
      ctx.error(
        file,
        at("reference_input_slots"),
        "binding_error",
        "this Contract declares a sealed slot, so every sandbox stage must list the slots it mounts in reference_input_slots ([] mounts none)",
      );
    }
    const named = separate.get(stage.key);
    if (stage.implementation != null && named) {
      ctx.error(
        named.file,
        named.at("implementation"),
        "schema_violation",
        `stage "${stage.key}" already names its implementation inline in ${file}; remove one of the two`,
      );
      continue;
    }
    const source = named ?? {
      file,
      at: (field: string) => at(field),
      implementation: stage.implementation,
      limits: stage.limits,
    };
    if (source.implementation == null) {
      ctx.error(
        file,
        at("implementation"),
        "not_found",
        'a sandbox stage needs an implementation: a builtin, "./checker.py" or an image pinned by digest (inline, or in verifier-implementation.json)',
      );
      continue;
    }
    const implementation = await resolveImplementation(ctx, prefix, stage, source, at, { slotKeys, roles });
    if (implementation) {
      implementations.push(
        source.provenance ? { ...implementation, source: source.provenance } : implementation,
      );
    }
  }
  if (ctx.errors.length > before) return undefined;

  const document = structuredClone(contract);
  for (const stage of document.stages) {
    const local = protocols.get(stage.key);
    if (local) stage.review_protocol_id = local.contentHash;
  }
  return { file, prefix, contract, document, contentHash: hashJson(document), implementations, protocols };
}

function checkKindFields(
  ctx: LintContext,
  file: string,
  stage: ContractStage,
  at: (...rest: Array<string | number>) => string,
): void {
  const kindName = `a ${stage.kind} stage`;
  if (stage.kind === "review" && stage.review_protocol_id === null) {
    ctx.error(
      file,
      at("review_protocol_id"),
      "schema_violation",
      'a review stage needs "review_protocol_id": "./review-protocol.json" or a published rpt_ id',
    );
  }
  if (stage.kind !== "review" && stage.review_protocol_id !== null) {
    ctx.error(
      file,
      at("review_protocol_id"),
      "schema_violation",
      `${kindName} has no review protocol; set it to null`,
    );
  }
  if (stage.kind === "external" && stage.external_system === null) {
    ctx.error(
      file,
      at("external_system"),
      "schema_violation",
      'an external stage names the attesting system in "external_system"',
    );
  }
  if (stage.kind !== "external" && stage.external_system !== null) {
    ctx.error(
      file,
      at("external_system"),
      "schema_violation",
      `${kindName} has no external system; set it to null`,
    );
  }
  if (stage.kind === "sandbox") return;
  for (const field of SANDBOX_ONLY) {
    if (stage[field] != null) {
      ctx.error(
        file,
        at(field),
        "schema_violation",
        `"${field}" is for sandbox stages only; remove it from ${kindName}`,
      );
    }
  }
}

/** Where a stage's implementation is written: inline in the contract or in verifier-implementation.json. */
interface ImplementationSource {
  file: string;
  at: (field: string) => string;
  implementation: string | null | undefined;
  limits: StageLimits | null | undefined;
  provenance?: ImplementationProvenance;
}

/**
 * Reads `verifier-implementation.json` beside a contract (the compatibility file): implementations
 * for sandbox stages that do not name one inline, by stage key.
 */
async function readImplementationFile(
  ctx: LintContext,
  prefix: string,
  contract: VerifierContractFile,
): Promise<Map<string, ImplementationSource>> {
  const file = `${prefix}verifier-implementation.json`;
  const byStage = new Map<string, ImplementationSource>();
  if (!ctx.has(file)) return byStage;
  const value = await ctx.schemaFile<VerifierImplementationFile>(file, "verifier-implementation-file");
  if (!value) return byStage;
  const sandbox = new Set(contract.stages.filter((s) => s.kind === "sandbox").map((s) => s.key));
  for (const [index, item] of value.implementations.entries()) {
    const at = (field: string) => pointer("implementations", index, field);
    if (!sandbox.has(item.stage_key)) {
      ctx.error(
        file,
        at("stage_key"),
        "not_found",
        `"${item.stage_key}" is not a sandbox stage of ${prefix}verifier-contract.json (sandbox stages: ${[...sandbox].join(", ") || "none"})`,
      );
    } else if (byStage.has(item.stage_key)) {
      ctx.error(
        file,
        at("stage_key"),
        "schema_violation",
        `stage "${item.stage_key}" is named twice; keep one`,
      );
    } else {
      const entry: ImplementationSource = {
        file,
        at,
        implementation: item.implementation,
        limits: item.limits,
      };
      if (item.source) {
        const where = (field: string) => pointer("implementations", index, "source", field);
        if (checkImplementationSource(ctx, file, where, item.source)) entry.provenance = item.source;
      }
      byStage.set(item.stage_key, entry);
    }
  }
  return byStage;
}

async function resolveImplementation(
  ctx: LintContext,
  prefix: string,
  stage: ContractStage,
  source: ImplementationSource,
  at: (...rest: Array<string | number>) => string,
  declared: { slotKeys: ReadonlySet<string>; roles: ReadonlySet<string> },
): Promise<ImplementationEntry | undefined> {
  const { file } = source;
  const where = source.at("implementation");
  const parsed = parseImplementation(source.implementation ?? "");
  const limits = { ...DEFAULT_LIMITS, ...(source.limits ?? {}), network: "none" as const };
  switch (parsed.kind) {
    case "unsupported":
      ctx.error(file, where, "unsupported_runtime", parsed.reason);
      return undefined;
    case "builtin": {
      const { artifactRole, referenceKey } = BUILTINS[parsed.imageRef];
      let ok = true;
      if (!declared.roles.has(artifactRole)) {
        ok = false;
        ctx.error(
          file,
          where,
          "binding_error",
          `${parsed.imageRef} checks the artifact role "${artifactRole}": declare it in submission_requirements.required_artifacts`,
        );
      }
      if (!declared.slotKeys.has(referenceKey)) {
        ok = false;
        ctx.error(
          file,
          where,
          "binding_error",
          `${parsed.imageRef} reads the reference input "${referenceKey}": declare it in reference_inputs`,
        );
      } else if (stage.reference_input_slots != null && !stage.reference_input_slots.includes(referenceKey)) {
        ok = false;
        ctx.error(
          `${prefix}verifier-contract.json`,
          at("reference_input_slots"),
          "binding_error",
          `${parsed.imageRef} reads "${referenceKey}": include it in reference_input_slots`,
        );
      }
      if (!ok) return undefined;
      return entry(
        stage.key,
        parsed.imageRef,
        catalogueDigest(parsed.imageRef),
        [parsed.imageRef],
        limits,
        null,
        null,
      );
    }
    case "script": {
      const path = `${prefix}${parsed.file}`;
      const size = ctx.tree.size(path);
      if (size === undefined) {
        ctx.error(file, where, "not_found", `${path} does not exist; add the checker or fix the name`);
        return undefined;
      }
      if (size === 0 || size > MAX_SCRIPT_BYTES) {
        ctx.error(
          file,
          where,
          "unsupported_runtime",
          `${path} is ${size} bytes; a script checker on ${PYTHON_RUNTIME} holds 1 to ${MAX_SCRIPT_BYTES} bytes (use an image for more)`,
        );
        return undefined;
      }
      const program = { filename: parsed.file, content_hash: await ctx.hash(path), size_bytes: size };
      return entry(
        stage.key,
        PYTHON_RUNTIME,
        catalogueDigest(PYTHON_RUNTIME),
        ["python3", `${CHECKER_MOUNT}/${parsed.file}`],
        limits,
        program,
        path,
      );
    }
    case "image":
      // The image's own ENTRYPOINT runs; the record names that choice instead of guessing argv.
      return entry(stage.key, parsed.imageRef, parsed.digest, ["@image-entrypoint"], limits, null, null);
    default: {
      const never: never = parsed;
      throw new Error(`Unhandled implementation kind: ${JSON.stringify(never)}`);
    }
  }
}

function entry(
  stageKey: string,
  imageRef: string,
  imageDigest: ContentHash,
  entrypoint: string[],
  limits: ImplementationEntry["limits"],
  program: ImplementationEntry["program"],
  programFile: string | null,
): ImplementationEntry {
  const runtime = { kind: "container" as const, image_ref: imageRef, image_digest: imageDigest };
  // spec 2.2: computed over runtime digest, entrypoint, limits and the program.
  const contentHash = hashJson({ runtime, entrypoint, limits, program });
  return { stageKey, runtime, entrypoint, limits, program, programFile, contentHash };
}

function reportDuplicates(
  ctx: LintContext,
  file: string,
  list: string,
  values: string[],
  field: string,
  what: string,
): void {
  const seen = new Set<string>();
  for (const [index, value] of values.entries()) {
    if (seen.has(value)) {
      ctx.error(
        file,
        `/${list}/${index}/${field}`,
        "schema_violation",
        `${what} "${value}" appears twice; each must be unique`,
      );
    }
    seen.add(value);
  }
}
