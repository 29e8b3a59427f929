import { tmpdir } from "node:os";
import { join } from "node:path";
import type { VerifierContractFile } from "@svc/schemas";
import Docker from "dockerode";
import {
  type AttestationBundle,
  checkAttestation,
  type KeysDocument,
} from "../attestation/check-attestation.ts";
import type { RunPredicateStage, RunStatement } from "../attestation/run-statement.ts";
import { resolveCredential } from "../client/credentials.ts";
import { ServiceCallError } from "../client/service-call-error.ts";
import { sha256 } from "../hash/sha256.ts";
import type { InputFile, RuntimeBinding } from "../sandbox/checker-job.ts";
import { type DetectedSandbox, detectSandbox } from "../sandbox/detect-sandbox.ts";
import { runChecker } from "../sandbox/run-checker.ts";
import { chainIdOf, prepareRuntimeRootfs, RUNTIME_SOURCE } from "../sandbox/runtime-rootfs.ts";
import { checkerImplementation, stageJob } from "../sandbox/stage-job.ts";
import { stageBindings } from "../verification/stage-bindings.ts";
import type { CliDeps } from "./cli-deps.ts";
import { type CliIo, UsageError } from "./cli-io.ts";
import { connectService } from "./connect-service.ts";
import {
  bindingFor,
  fetchBytes,
  type ReferenceResource,
  type RevisionView,
  readContract,
  referenceFile,
} from "./verify-command.ts";

export interface ReplayOptions {
  server?: string;
  json?: boolean;
  /** The runtime image: a skopeo source for bubblewrap, or a local Docker image; checked against the attested ChainID. */
  image?: string;
  sandbox?: string;
}

/** One comparison between the attestation and the replay. */
interface Difference {
  stage_key: string;
  field: "result" | "score" | "evidence_hash" | "runtime";
  attested: unknown;
  replayed: unknown;
}

/**
 * `svc verify --replay <run-id>` (docs/attestations.md "Replaying a run"): reads the run's signed
 * attestation (checked against the published keys first), downloads what the caller may read (the
 * artifacts, each stage's program, the revision's public or released reference inputs), runs the
 * run's sandbox stages here with the very implementations it ran, on the runtime bytes it ran on
 * (an image whose ChainID is the attested one: unpacked for bubblewrap, or a local Docker image),
 * and compares each stage's result, score and evidence digest with the attestation. Exit 0 when
 * they agree, 1 naming the first difference, 2 for bad usage.
 */
export async function replayCommand(
  runId: string,
  options: ReplayOptions,
  io: CliIo,
  deps: CliDeps,
): Promise<number> {
  const { server, token } = await resolveCredential(options, deps.env);
  const getJson = async (path: string): Promise<any> => {
    const response = await fetch(`${server}${path}`, {
      headers: { accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      signal: AbortSignal.timeout(60_000),
    });
    const body = (await response.json().catch(() => null)) as any;
    if (!response.ok)
      throw new UsageError(
        `${path}: ${body?.error ? `[${body.error.code}] ${body.error.message}` : `HTTP ${response.status}`}`,
      );
    return body;
  };
  const bundle = (await getJson(`/api/verifications/${runId}/attestations`)) as AttestationBundle;
  const keys = (await getJson("/.well-known/svc-attestation-keys")) as KeysDocument;
  const checked = checkAttestation(bundle, keys, [], { seen: null, latest: null });
  const failed = checked.checks.find((check) => check.ok === false);
  if (failed) {
    io.stdout(`FAILED: ${failed.name}: ${failed.detail}\n`);
    return 1;
  }
  // The run's finish is what a replay reproduces; a later revocation changes no stage's outcome.
  // A sealed run's withheld values are compared once released: their openings are checked above.
  const statement = checked.opened.find((s) => s.predicate.reason === "finished");
  if (!statement)
    throw new UsageError(`run ${runId} has no attestation of its finish yet; try again in a few seconds`);
  const withheld = JSON.stringify(statement.predicate.stages).includes('"commitment"');
  if (withheld) {
    io.stdout("the attestation withholds this sealed run's outcome until release: nothing to compare yet\n");
    return 1;
  }

  const { client } = await connectService(options, deps);
  const download = (url: string) =>
    fetchBytes(url, url.startsWith(server) ? (token ?? undefined) : undefined);
  const differences: Difference[] = [];
  const lines: string[] = [];
  let published: { runtimes: PublishedRuntime[] } | undefined;
  try {
    const { problem } = statement.predicate;
    const envelope = await client.callTool("get_problem", {
      problem: problem.problem_id,
      revision: problem.revision_number,
    });
    const revision = envelope.revision as RevisionView;
    const resources = (envelope.reference_resources ?? []) as ReferenceResource[];
    const { contract, implementations } = await readContract(
      client,
      statement.predicate.verifier_contract.verifier_contract_id,
    );
    const artifacts = await runArtifacts(client, statement, download);
    const local = await detectSandbox({
      env: deps.env,
      // A local image name is Docker's to run; a skopeo source is unpacked for bubblewrap.
      ...(options.image !== undefined && !RUNTIME_SOURCE.test(options.image)
        ? { pythonImage: options.image }
        : {}),
      ...(options.sandbox === "bwrap" || options.sandbox === "docker" ? { prefer: options.sandbox } : {}),
    });

    for (const attested of statement.predicate.stages) {
      if (attested.kind !== "sandbox" || attested.sandbox === null) {
        lines.push(
          `skip ${attested.stage_key}: ${attested.kind} stages are not replayed (their record is attested)`,
        );
        continue;
      }
      const stage = contract.stages.find((s) => s.key === attested.stage_key);
      const impl = implementations.find((i) => i.id === attested.sandbox!.verifier_implementation_id);
      if (!stage || !impl)
        throw new UsageError(`stage ${attested.stage_key}'s implementation is not readable here`);
      const reference = await referenceInputs(contract, stage, revision, resources, download);
      const program = impl.program
        ? await download(`${server}/api/verifier-implementations/${impl.id}/program`)
        : null;
      if (program && sha256(program) !== impl.program!.content_hash) {
        throw new UsageError(`the program of ${impl.id} does not match its content hash`);
      }
      const binding = await runtimeFor(attested, impl.runtime.image_ref, local, options, deps, async () => {
        published ??= (await getJson("/api/runtimes")) as { runtimes: PublishedRuntime[] };
        return published.runtimes;
      });
      const job = stageJob(contract, stage, checkerImplementation(impl, program), { artifacts, reference });
      const outcome = await runChecker(job, { binding, backends: local.backends });
      const compare = (field: Difference["field"], a: unknown, b: unknown) => {
        if (JSON.stringify(a) !== JSON.stringify(b))
          differences.push({ stage_key: stage.key, field, attested: a, replayed: b });
      };
      compare("result", attested.result, outcome.result);
      compare("score", attested.score, outcome.result === "verified" ? outcome.score : null);
      compare("evidence_hash", attested.sandbox.evidence_hash, outcome.evidence_hash);
      lines.push(
        `${differences.some((d) => d.stage_key === stage.key) ? "DIFF" : "same"} ${stage.key}: ${outcome.result}` +
          `${outcome.score !== null ? ` score ${outcome.score}` : ""}, evidence ${outcome.evidence_hash ?? "none"} on ${outcome.backend}` +
          `${binding?.bytes_digest ? ` (${binding.bytes_digest.slice(0, 19)}…)` : ""}` +
          `${outcome.result === "error" && outcome.reason ? `: ${outcome.reason}` : ""}`,
      );
    }
  } catch (error) {
    if (!(error instanceof ServiceCallError)) throw error;
    io.stderr(`svc verify --replay: ${error.code}: ${error.message}\n`);
    return 1;
  } finally {
    await client.close();
  }
  const first = differences[0];
  if (options.json) {
    io.stdout(`${JSON.stringify({ ok: !first, run: runId, differences }, null, 2)}\n`);
  } else {
    io.stdout(`${lines.join("\n")}\n`);
    io.stdout(
      first
        ? `DIFFERENT: stage ${first.stage_key} ${first.field}: attested ${JSON.stringify(first.attested)}, replayed ${JSON.stringify(first.replayed)}\n`
        : `SAME: every sandbox stage of ${runId} replayed to its attested result, score and evidence digest\n`,
    );
  }
  return first ? 1 : 0;
}

/** The run's artifacts, downloaded and checked against the attested subjects. */
async function runArtifacts(
  client: Awaited<ReturnType<typeof connectService>>["client"],
  statement: RunStatement,
  download: (url: string) => Promise<Uint8Array>,
): Promise<InputFile[]> {
  const listed = await client.callTool("list_artifacts", { attempt_id: statement.predicate.run.attempt_id });
  const byId = new Map(
    (
      (listed.artifacts ?? []) as Array<{
        id: string;
        filename: string;
        media_type: string;
        download_url?: string;
      }>
    ).map((a) => [a.id, a]),
  );
  const files: InputFile[] = [];
  for (const subject of statement.subject) {
    const [role, artifactId] = subject.name.split("/") as [string, string];
    const artifact = byId.get(artifactId);
    if (!artifact?.download_url)
      throw new UsageError(`artifact ${artifactId} is not readable with this credential`);
    const bytes = await download(artifact.download_url);
    if (sha256(bytes) !== `sha256:${subject.digest.sha256}`) {
      throw new UsageError(`artifact ${artifactId} does not match the attested subject ${subject.name}`);
    }
    files.push({
      name: role,
      filename: artifact.filename,
      media_type: artifact.media_type,
      content_hash: sha256(bytes),
      size_bytes: bytes.length,
      bytes,
    });
  }
  return files;
}

/** A stage's mounted reference inputs; a sealed one not yet released stops the replay with why. */
async function referenceInputs(
  contract: VerifierContractFile,
  stage: VerifierContractFile["stages"][number],
  revision: RevisionView,
  resources: ReferenceResource[],
  download: (url: string) => Promise<Uint8Array>,
): Promise<InputFile[]> {
  const { mounted } = stageBindings(contract, stage, revision.verifier_input_bindings);
  const files: InputFile[] = [];
  for (const binding of mounted) {
    const resource = resources.find((r) => r.key === binding.key);
    if (!resource) continue;
    if (resource.sealed || !resource.download_url) {
      throw new UsageError(
        `reference input "${binding.key}" is sealed: a replay of stage ${stage.key} waits for its release`,
      );
    }
    const bytes = await download(resource.download_url);
    if (sha256(bytes) !== resource.content_hash)
      throw new UsageError(`reference input "${binding.key}" does not match its hash`);
    files.push(referenceFile(binding, resource, bytes));
  }
  return files;
}

/** A runtime's bound bytes as the service publishes them (GET /api/runtimes). */
interface PublishedRuntime {
  image_ref: string;
  runtime_bytes_digest: string | null;
  source: string | null;
}

/**
 * The runtime a stage is replayed on: builtins need none; a script runtime whose attested bytes
 * are an image's ChainID runs on an image with that ChainID (--image: a skopeo source unpacked for
 * bubblewrap, or a local Docker image; else SVC_PYTHON_IMAGE from the local engine; else the
 * registry reference the service publishes for those bytes); one that ran on a host's interpreter
 * runs on this machine's, as the record says it did.
 */
async function runtimeFor(
  attested: RunPredicateStage,
  imageRef: string,
  local: DetectedSandbox,
  options: ReplayOptions,
  deps: CliDeps,
  publishedRuntimes: () => Promise<PublishedRuntime[]>,
): Promise<RuntimeBinding | null> {
  const detected = local.binding;
  const digest = attested.sandbox?.runtime_bytes_digest ?? null;
  if (imageRef.startsWith("svc-builtin/") || digest === null) return bindingFor(imageRef, detected);
  let image = options.image ?? deps.env.SVC_PYTHON_IMAGE;
  if (!image) {
    // The bytes themselves are checked against the attested ChainID when unpacked, whoever names them.
    const published = (await publishedRuntimes()).find(
      (runtime) => runtime.image_ref === imageRef && runtime.runtime_bytes_digest === digest,
    );
    if (!published?.source)
      throw new UsageError(
        `stage ${attested.stage_key} ran on image bytes ${digest}, which the service publishes no registry reference for: name an image with them (--image)`,
      );
    // A published registry reference is unpacked for bubblewrap.
    if (local.backends.bwrap === undefined)
      throw new UsageError(
        `stage ${attested.stage_key} ran on ${published.source.slice("docker://".length)} (${digest}): pull it into your engine and name it (--image), or replay under bubblewrap (--sandbox bwrap)`,
      );
    image = published.source;
  }
  const isSource = RUNTIME_SOURCE.test(image);
  if (detected?.backend === "docker" && !isSource) {
    const inspected = await new Docker().getImage(image).inspect();
    const chain = chainIdOf(inspected.RootFS?.Layers ?? []);
    if (chain !== digest)
      throw new UsageError(`${image} holds the layers ${chain}, not the attested ${digest}`);
    return { backend: "docker", local_image: inspected.Id, bytes_digest: chain };
  }
  const source = isSource ? image : `docker-daemon:${image}`;
  // Under the temp folder: bubblewrap run as root drops to an unprivileged user, who cannot enter ~.
  const cacheDir = deps.env.SVC_RUNTIME_DIR || join(tmpdir(), `svc-runtimes-${process.getuid?.() ?? "user"}`);
  const { rootfs } = await prepareRuntimeRootfs(source, cacheDir, digest);
  return { backend: "bwrap", local_image: digest, rootfs, bytes_digest: digest };
}
