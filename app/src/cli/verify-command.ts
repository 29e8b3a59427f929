import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { ContractStage, VerifierContractFile } from "@svc/schemas";
import { mediaTypeOf } from "../catalogue/media-type.ts";
import { resolveCredential } from "../client/credentials.ts";
import { ServiceCallError } from "../client/service-call-error.ts";
import type { ServiceClient } from "../client/service-client.ts";
import { type ContentHash, sha256 } from "../hash/sha256.ts";
import type { InputFile, RuntimeBinding } from "../sandbox/checker-job.ts";
import { type DetectedSandbox, detectSandbox } from "../sandbox/detect-sandbox.ts";
import { runChecker } from "../sandbox/run-checker.ts";
import { checkerImplementation, stageJob } from "../sandbox/stage-job.ts";
import {
  currentImplementation,
  type ImplementationCandidate,
} from "../verification/current-implementation.ts";
import { type FinishedStage, runContinues, runVerdict } from "../verification/run-verdict.ts";
import { stageBindings } from "../verification/stage-bindings.ts";
import type { CliDeps } from "./cli-deps.ts";
import { type CliIo, UsageError } from "./cli-io.ts";
import { connectService } from "./connect-service.ts";
import { formatVerifyReport, type StageReport, type VerifyReport } from "./format-verify.ts";

export interface VerifyOptions {
  artifact?: string[];
  revision?: string;
  json?: boolean;
  server?: string;
  image?: string;
  sandbox?: string;
}

/** One implementation as `get_verifier_contract` summarizes it (server/src/verifier-contracts). */
export interface ImplementationSummary extends ImplementationCandidate {
  id: string;
  stage_key: string;
  runtime: { image_ref: string; image_digest: string };
  entrypoint: string[];
  limits: { vcpu: number; memory_mb: number; disk_mb: number; timeout_seconds: number };
  program: { filename: string; content_hash: string; size_bytes: number } | null;
  yanked_at: string | null;
}

/** The revision's fields the preflight reads (spec 2.3). */
export interface RevisionView {
  revision_number: number;
  verifier_contract_id: string | null;
  verifier_input_bindings: Array<{ key: string; filename?: string; url?: string }>;
}

/** One `reference_resources` entry of the get_problem envelope (spec 4.1). */
export interface ReferenceResource {
  key: string;
  media_type: string;
  content_hash: string;
  size_bytes: number;
  download_url?: string;
  sealed: boolean;
}

/**
 * `svc verify <problem> --artifact <role>=<path>... [--revision n] [--json]`: a solver's preflight.
 * Reads the revision (`get_problem`) and its pinned Contract with its implementations
 * (`get_verifier_contract`), then runs the sandbox stages here on the local files by the service's
 * own rules (@svc/app verification): each stage's current implementation (never a pending or
 * failed one), the job `stageJob` builds, Contract order, stop at the first stage that does not
 * pass, the verdict `runVerdict` gives. It submits nothing and consumes no quota. Linked slots are
 * skipped with a note (sandbox stages never mount them); a stage mounting a sealed slot is not run
 * (its bytes are not readable), with a note; review and external stages run only on the service.
 * Exit 0 when every stage run here verified, 1 otherwise (or when none could run).
 */
export async function verifyCommand(
  problem: string,
  options: VerifyOptions,
  io: CliIo,
  deps: CliDeps,
  detect: (o: Parameters<typeof detectSandbox>[0]) => Promise<DetectedSandbox> = detectSandbox,
): Promise<number> {
  const artifacts = await readArtifacts(options.artifact ?? []);
  const revisionNumber = parseRevision(options.revision);
  const { client, server } = await connectService(options, deps);
  const { token } = await resolveCredential(options, deps.env);
  const download = (url: string) =>
    fetchBytes(url, url.startsWith(server) ? (token ?? undefined) : undefined);
  try {
    const envelope = await client.callTool("get_problem", {
      problem,
      ...(revisionNumber !== undefined ? { revision: revisionNumber } : {}),
    });
    const revision = envelope.revision as RevisionView;
    if (revision.verifier_contract_id === null) {
      io.stdout("this revision pins no verifier contract: submissions are recorded, not checked\n");
      return 0;
    }
    const { contract, implementations } = await readContract(client, revision.verifier_contract_id);
    checkRoles(contract, artifacts);
    const resources = (envelope.reference_resources ?? []) as ReferenceResource[];
    const sandbox = await detect({
      env: deps.env,
      ...(options.image !== undefined ? { pythonImage: options.image } : {}),
      ...(options.sandbox === "bwrap" || options.sandbox === "docker" ? { prefer: options.sandbox } : {}),
    });

    const stages: StageReport[] = [];
    const finished: FinishedStage[] = [];
    for (const stage of contract.stages) {
      const report = emptyReport(stage);
      stages.push(report);
      if (!runContinues(finished)) {
        report.summary = "not reached: an earlier stage did not pass";
        continue;
      }
      if (stage.kind !== "sandbox") {
        report.summary = `${stage.kind} stages run only on the service`;
        continue;
      }
      const choice = currentImplementation(implementations.filter((i) => i.stage_key === stage.key));
      if (choice.current === null) {
        if (choice.pending !== null) {
          report.summary = `implementation version ${choice.pending.version_number} is still running its conformance fixtures (a run waits for it)`;
          continue;
        }
        // What the service records for a stage it cannot execute (server run-sandbox-stage.ts).
        finish(report, finished, {
          result: "inconclusive",
          score: null,
          summary: `stage \`${stage.key}\` has no implementation whose conformance fixtures passed, so the service cannot execute it`,
        });
        continue;
      }
      const impl = choice.current;
      report.verifier_implementation_id = impl.id;
      report.version_number = impl.version_number;

      const { mounted, linked } = stageBindings(contract, stage, revision.verifier_input_bindings);
      for (const binding of linked) {
        report.notes.push(`linked slot "${binding.key}" skipped: sandbox stages never mount a linked slot`);
      }
      const reference: InputFile[] = [];
      for (const binding of mounted) {
        const resource = resources.find((r) => r.key === binding.key);
        if (resource === undefined) continue;
        if (resource.sealed || resource.download_url === undefined) {
          report.notes.push(
            `sealed slot "${binding.key}" skipped: its bytes are not readable until it is unsealed, so this stage runs only on the service`,
          );
          continue;
        }
        const bytes = await download(resource.download_url);
        if (sha256(bytes) !== resource.content_hash) {
          throw new ServiceCallError(
            "hash_mismatch",
            `reference input "${binding.key}" does not match its content_hash ${resource.content_hash}`,
            { transient: false },
          );
        }
        reference.push(referenceFile(binding, resource, bytes));
      }
      if (report.notes.some((note) => note.startsWith("sealed slot"))) {
        report.summary = "the stage mounts a sealed slot, so it runs only on the service";
        continue;
      }
      const program = impl.program
        ? await download(`${server.replace(/\/$/, "")}/api/verifier-implementations/${impl.id}/program`)
        : null;
      const job = stageJob(contract, stage, checkerImplementation(impl, program), { artifacts, reference });
      const outcome = await runChecker(job, {
        binding: bindingFor(impl.runtime.image_ref, sandbox.binding),
        backends: sandbox.backends,
      });
      Object.assign(report, {
        backend: outcome.backend,
        limit: outcome.limit,
        evidence_hash: outcome.evidence_hash,
        duration_ms: outcome.duration_ms,
      });
      const summary = [outcome.summary, outcome.reason].filter((part) => part && part !== "").join("; ");
      finish(report, finished, { result: outcome.result, score: outcome.score, summary });
    }

    const verdict =
      finished.length === 0
        ? null
        : runVerdict(finished, { stage_count: finished.length, result_kind: contract.result_kind });
    const report: VerifyReport = {
      ok: verdict?.result === "verified",
      result: verdict?.result ?? null,
      score: verdict?.score ?? null,
      problem,
      revision: revision.revision_number,
      verifier_contract_id: revision.verifier_contract_id,
      sandbox: sandbox.description,
      submitted: false,
      stages,
    };
    io.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatVerifyReport(report));
    return report.ok ? 0 : 1;
  } catch (error) {
    if (!(error instanceof ServiceCallError)) throw error;
    io.stderr(`svc verify: ${error.code}: ${error.message}\n`);
    return 1;
  } finally {
    await client.close();
  }
}

/** `get_verifier_contract`: the Contract's fields are at the top level of `verifier_contract`. */
export async function readContract(
  client: ServiceClient,
  id: string,
): Promise<{ contract: VerifierContractFile; implementations: ImplementationSummary[] }> {
  const result = await client.callTool("get_verifier_contract", { verifier_contract_id: id });
  const {
    id: _id,
    publisher_user_id,
    content_hash,
    created_at,
    ...document
  } = result.verifier_contract as Record<string, unknown>;
  return {
    contract: document as unknown as VerifierContractFile,
    implementations: (result.implementations ?? []) as ImplementationSummary[],
  };
}

function emptyReport(stage: ContractStage): StageReport {
  return {
    stage_key: stage.key,
    kind: stage.kind,
    ran: false,
    result: null,
    score: null,
    summary: "",
    notes: [],
    verifier_implementation_id: null,
    version_number: null,
    backend: null,
    limit: null,
    evidence_hash: null,
    duration_ms: null,
  };
}

function finish(
  report: StageReport,
  finished: FinishedStage[],
  outcome: { result: FinishedStage["result"]; score: number | null; summary: string },
): void {
  report.ran = true;
  report.result = outcome.result;
  report.score = outcome.result === "verified" ? outcome.score : null;
  report.summary = outcome.summary;
  finished.push({
    stage_key: report.stage_key,
    kind: "sandbox",
    result: outcome.result,
    score: report.score,
    evidence_md: outcome.summary,
  });
}

/**
 * The binding a stage's image runs on here: builtins need none, `svc-runtime/python:1` the
 * detected one, and a custom image (pinned by digest) itself, on the detected engine.
 */
export function bindingFor(imageRef: string, detected: RuntimeBinding | null): RuntimeBinding | null {
  if (imageRef.startsWith("svc-builtin/") || imageRef.startsWith("svc-runtime/") || detected === null)
    return detected;
  return { backend: detected.backend, local_image: imageRef };
}

/** Every artifact role the Contract requires, and no other, must be given. */
function checkRoles(contract: VerifierContractFile, artifacts: InputFile[]): void {
  const required = contract.submission_requirements.required_artifacts.map((a) => a.role);
  const given = artifacts.map((a) => a.name);
  const missing = required.filter((role) => !given.includes(role));
  const unknown = given.filter((role) => !required.includes(role));
  if (missing.length > 0 || unknown.length > 0) {
    const parts = [
      missing.length > 0 ? `missing --artifact for ${missing.join(", ")}` : "",
      unknown.length > 0 ? `the contract requires no role ${unknown.join(", ")}` : "",
    ].filter((part) => part !== "");
    throw new UsageError(`${parts.join("; ")} (roles: ${required.join(", ") || "none"})`);
  }
}

function parseRevision(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`--revision "${value}" is not a revision number`);
  return Number(value);
}

/** `--artifact role=path` pairs as input files; a missing file or a malformed pair is a usage error. */
async function readArtifacts(pairs: string[]): Promise<InputFile[]> {
  if (pairs.length === 0) throw new UsageError("name at least one artifact: --artifact <role>=<path>");
  const files: InputFile[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--artifact "${pair}" is not <role>=<path>`);
    const role = pair.slice(0, eq);
    const path = pair.slice(eq + 1);
    if (files.some((file) => file.name === role)) throw new UsageError(`--artifact ${role} is given twice`);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch {
      throw new UsageError(`--artifact ${role}: cannot read ${path}`);
    }
    const filename = basename(path);
    files.push({
      name: role,
      filename,
      media_type: mediaTypeOf(filename),
      content_hash: sha256(bytes),
      size_bytes: bytes.length,
      bytes,
    });
  }
  return files;
}

export async function fetchBytes(url: string, token: string | undefined): Promise<Uint8Array> {
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (!response.ok)
    throw new ServiceCallError("download_failed", `GET ${url} answered ${response.status}`, {
      transient: false,
    });
  return new Uint8Array(await response.arrayBuffer());
}

/** A checked reference input's bytes as the file a stage mounts (svc verify and its --replay). */
export function referenceFile(
  binding: { key: string; filename?: string },
  resource: ReferenceResource,
  bytes: Uint8Array,
): InputFile {
  return {
    name: binding.key,
    filename: binding.filename ?? binding.key,
    media_type: resource.media_type,
    content_hash: resource.content_hash as ContentHash,
    size_bytes: bytes.length,
    bytes,
  };
}
