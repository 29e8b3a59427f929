import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { VerifierContractFile } from "@svc/schemas";
import { CHECKER_MOUNT, DEFAULT_LIMITS, PYTHON_RUNTIME } from "../catalogue/implementation-catalogue.ts";
import { mediaTypeOf } from "../catalogue/media-type.ts";
import { resolveCredential } from "../client/credentials.ts";
import { ServiceCallError } from "../client/service-call-error.ts";
import { sha256 } from "../hash/sha256.ts";
import type { CheckerOutcome, InputFile } from "../sandbox/checker-job.ts";
import { type DetectedSandbox, detectSandbox } from "../sandbox/detect-sandbox.ts";
import { IMAGE_ENTRYPOINT } from "../sandbox/docker-backend.ts";
import { runChecker } from "../sandbox/run-checker.ts";
import { checkerImplementation, mountedSlots, stageJob } from "../sandbox/stage-job.ts";
import type { CliDeps } from "./cli-deps.ts";
import { type CliIo, UsageError } from "./cli-io.ts";
import { connectService } from "./connect-service.ts";

export interface VerifyOptions {
  artifact?: string[];
  revision?: string;
  json?: boolean;
  server?: string;
  image?: string;
  sandbox?: string;
}

interface StageReport {
  stage_key: string;
  kind: string;
  ran: boolean;
  result: string | null;
  score: number | null;
  summary: string;
  notes: string[];
  backend: string | null;
  limit: string | null;
  evidence_hash: string | null;
}

/**
 * `svc verify <problem> --artifact <role>=<path>... [--revision n] [--json]`: a solver's preflight.
 * Fetches the problem's revision and pinned contract from the service, downloads the public
 * reference inputs, and runs the contract's sandbox stages here on the local files, in order,
 * stopping at the first that does not pass (as a run does). It submits nothing and consumes no
 * quota. Linked slots are skipped with a note (sandbox stages never mount them); sealed slots
 * are skipped with a note (their bytes are not readable); review and external stages are
 * reported as not run locally. Exit 0 when every sandbox stage verified, 1 otherwise.
 */
export async function verifyCommand(
  problem: string,
  options: VerifyOptions,
  io: CliIo,
  deps: CliDeps,
  detect: (o: Parameters<typeof detectSandbox>[0]) => Promise<DetectedSandbox> = detectSandbox,
): Promise<number> {
  const artifacts = await readArtifacts(options.artifact ?? []);
  const { client, server } = await connectService(options, deps);
  const { token } = await resolveCredential(options, deps.env);
  const authorized = (url: string) =>
    fetchBytes(url, url.startsWith(server) ? (token ?? undefined) : undefined);
  try {
    const envelope = await client.callTool("get_problem", {
      problem,
      ...(options.revision !== undefined ? { revision: Number(options.revision) } : {}),
    });
    const revision = envelope.revision as {
      id: string;
      revision_number: number;
      verifier_contract_id: string | null;
      verifier_input_bindings: Array<{ key: string; filename?: string; url?: string; media_type: string }>;
    };
    if (revision.verifier_contract_id === null) {
      io.stdout("this revision pins no verifier contract: submissions are recorded, not checked\n");
      return 0;
    }
    const contractEnvelope = await client.callTool("get_verifier_contract", {
      verifier_contract_id: revision.verifier_contract_id,
    });
    const contract = (contractEnvelope.verifier_contract as { document: VerifierContractFile }).document;
    const implementations = (contractEnvelope.implementations ?? []) as Array<{
      id: string;
      stage_key: string;
      version_number: number;
      runtime: { image_ref: string; image_digest: string };
      program: { filename: string; content_hash: string; size_bytes: number } | null;
      yanked_at: string | null;
      current: boolean;
    }>;
    const resources = (envelope.reference_resources ?? []) as Array<{
      key: string;
      media_type: string;
      content_hash: string;
      size_bytes: number;
      download_url?: string;
      sealed: boolean;
      url?: string;
    }>;
    const sandbox = await detect({
      env: deps.env,
      ...(options.image !== undefined ? { pythonImage: options.image } : {}),
      ...(options.sandbox === "bwrap" || options.sandbox === "docker" ? { prefer: options.sandbox } : {}),
    });
    if (!options.json)
      io.stdout(
        `problem ${problem}, revision ${revision.revision_number}; sandbox: ${sandbox.description}\n`,
      );

    const stages: StageReport[] = [];
    let stopped = false;
    for (const stage of contract.stages) {
      const base = {
        stage_key: stage.key,
        kind: stage.kind,
        score: null,
        backend: null,
        limit: null,
        evidence_hash: null,
      };
      if (stage.kind !== "sandbox") {
        stages.push({
          ...base,
          ran: false,
          result: null,
          summary: `${stage.kind} stage: not run locally`,
          notes: [],
        });
        continue;
      }
      if (stopped) {
        stages.push({
          ...base,
          ran: false,
          result: null,
          summary: "not reached: an earlier stage did not pass",
          notes: [],
        });
        continue;
      }
      const candidates = implementations.filter((i) => i.stage_key === stage.key && i.yanked_at === null);
      const impl = candidates.find((i) => i.current) ?? candidates.at(-1);
      if (impl === undefined) {
        stages.push({ ...base, ran: false, result: null, summary: "no implementation to run", notes: [] });
        stopped = true;
        continue;
      }
      const notes: string[] = [];
      const reference: InputFile[] = [];
      for (const key of mountedSlots(contract, stage)) {
        const resource = resources.find((r) => r.key === key);
        const binding = revision.verifier_input_bindings.find((b) => b.key === key);
        if (resource === undefined) continue;
        if (resource.url !== undefined || binding?.url !== undefined) {
          notes.push(`linked slot "${key}" skipped: sandbox stages never mount a linked slot`);
          continue;
        }
        if (resource.sealed || resource.download_url === undefined) {
          notes.push(`sealed slot "${key}" skipped: its bytes are not readable until unsealing`);
          continue;
        }
        const bytes = await authorized(resource.download_url);
        if (sha256(bytes) !== resource.content_hash)
          throw new Error(`reference "${key}" does not match its content_hash`);
        reference.push({
          name: key,
          filename: binding?.filename ?? key,
          media_type: resource.media_type,
          content_hash: resource.content_hash as InputFile["content_hash"],
          size_bytes: bytes.length,
          bytes,
        });
      }
      const programBytes = impl.program
        ? await authorized(`${server.replace(/\/$/, "")}/api/verifier-implementations/${impl.id}/program`)
        : null;
      const limits = { ...DEFAULT_LIMITS, ...(stage.limits ?? {}) };
      const entrypoint =
        impl.runtime.image_ref === PYTHON_RUNTIME && impl.program
          ? ["python3", `${CHECKER_MOUNT}/${impl.program.filename}`]
          : [IMAGE_ENTRYPOINT];
      const implementation = checkerImplementation(
        { runtime: impl.runtime, entrypoint, limits, program: impl.program },
        programBytes,
      );
      const job = stageJob(contract, stage, implementation, { artifacts, reference });
      const binding =
        impl.runtime.image_ref === PYTHON_RUNTIME || sandbox.binding === null
          ? sandbox.binding
          : { backend: sandbox.binding.backend, local_image: impl.runtime.image_ref };
      const outcome: CheckerOutcome = await runChecker(job, { binding, backends: sandbox.backends });
      stages.push({
        ...base,
        ran: true,
        result: outcome.result,
        score: outcome.score,
        summary: outcome.summary,
        notes,
        backend: outcome.backend,
        limit: outcome.limit,
        evidence_hash: outcome.evidence_hash,
      });
      if (outcome.result !== "verified") stopped = true;
    }
    const ran = stages.filter((s) => s.ran);
    const ok = ran.length > 0 && ran.every((s) => s.result === "verified") && !stopped;
    if (options.json) {
      io.stdout(
        `${JSON.stringify({ ok, problem, revision: revision.revision_number, sandbox: sandbox.description, stages }, null, 2)}\n`,
      );
    } else {
      for (const s of stages) {
        const head = s.ran ? `${s.result}${s.score !== null ? ` (score ${s.score})` : ""}` : "not run";
        io.stdout(`${s.stage_key} [${s.kind}]: ${head}: ${s.summary}\n`);
        for (const note of s.notes) io.stdout(`  note: ${note}\n`);
      }
      io.stdout(
        `${ok ? "every sandbox stage verified" : "not verified"} (local preflight: nothing was submitted)\n`,
      );
    }
    return ok ? 0 : 1;
  } catch (error) {
    if (!(error instanceof ServiceCallError)) throw error;
    io.stderr(`svc verify: ${error.code}: ${error.message}\n`);
    return 1;
  } finally {
    await client.close();
  }
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

async function fetchBytes(url: string, token: string | undefined): Promise<Uint8Array> {
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (!response.ok)
    throw new ServiceCallError("download_failed", `GET ${url} answered ${response.status}`, {
      transient: false,
    });
  return new Uint8Array(await response.arrayBuffer());
}
