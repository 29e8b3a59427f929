import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ServiceCallError } from "../client/service-call-error.ts";
import type { CliDeps } from "./cli-deps.ts";
import { type CliIo, UsageError } from "./cli-io.ts";
import { connectService } from "./connect-service.ts";
import { type Builder, type CommandRunner, pickBuilder, runCommand } from "./pick-builder.ts";

export interface VerifierBuildOptions {
  repository?: string;
  tag?: string;
  contract?: string;
  stage?: string;
  limits?: string;
  json?: boolean;
  dryRun?: boolean;
}

const LIMIT_KEYS = ["memory_mb", "vcpu", "disk_mb", "timeout_seconds"] as const;

/**
 * `svc verifier build <checker-dir>` (spec 4.2): builds the directory's Dockerfile for
 * linux/amd64, pushes it to `--repository` (else SVC_IMAGE_REPOSITORY), reads the pushed digest,
 * confirms an anonymous pull works (with an empty Docker config: a private repository is an
 * error), and with a contract (`--contract`, else verifier-contract.json in the parent directory)
 * and `--stage` writes `repository@sha256:...` into the stage's implementation, with `--limits`
 * merged into its limits. `--dry-run` prints the commands and changes nothing. The builder is
 * chosen by `pickBuilder` (spec 4.2's order); a cloud builder builds and pushes with
 * `docker buildx`, the local daemon with `docker build` and `docker push` (no buildx plugin
 * needed). Build output goes to stderr, so `--json` stdout stays one document.
 */
export async function verifierBuildCommand(
  dir: string,
  options: VerifierBuildOptions,
  io: CliIo,
  env: Readonly<Record<string, string | undefined>> = process.env,
  run: CommandRunner = runCommand,
): Promise<number> {
  const checkerDir = resolve(dir);
  if (!existsSync(join(checkerDir, "Dockerfile"))) throw new UsageError(`${checkerDir} has no Dockerfile`);
  const repository = options.repository ?? env.SVC_IMAGE_REPOSITORY;
  if (!repository) {
    throw new UsageError("name where to push: --repository <registry>/<repo> (or SVC_IMAGE_REPOSITORY)");
  }
  const tag = options.tag ?? `svc-${Date.now().toString(36)}`;
  const limits = parseLimits(options.limits);
  const contractFile = options.contract ?? join(dirname(checkerDir), "verifier-contract.json");
  const writeContract = options.stage !== undefined && existsSync(contractFile);
  if (options.stage !== undefined && !writeContract)
    throw new UsageError(`no contract at ${contractFile}; pass --contract <path>`);
  const builder = pickBuilder(env, run, { create: !options.dryRun });
  if (builder.kind === "none") {
    io.stderr(`svc verifier build: ${builder.reason}\n`);
    return 1;
  }
  const ref = `${repository}:${tag}`;
  const build = buildCommands(builder, ref, checkerDir);
  const digestCommand =
    builder.kind === "cloud"
      ? ["docker", "buildx", "imagetools", "inspect", ref, "--format", "{{json .Manifest.Digest}}"]
      : ["docker", "image", "inspect", "--format", "{{json .RepoDigests}}", ref];
  const pullCommand = (pinned: string, config: string) => [
    "docker",
    "--config",
    config,
    "pull",
    "--platform",
    "linux/amd64",
    pinned,
  ];
  if (options.dryRun) {
    for (const command of [
      ...build,
      digestCommand,
      pullCommand(`${repository}@<digest>`, "<empty temporary directory>"),
    ]) {
      io.stdout(`${command.map(quote).join(" ")}\n`);
    }
    if (writeContract) {
      io.stdout(
        `# then: write "${repository}@<digest>" into ${contractFile} stage "${options.stage}"${limits ? ` with limits ${JSON.stringify(limits)}` : ""}\n`,
      );
    }
    return 0;
  }
  for (const command of build) {
    // Progress on stderr: stdout is the command's answer.
    const done = spawnSync(command[0]!, command.slice(1), { stdio: ["ignore", 2, 2] });
    if (done.status !== 0) {
      io.stderr(
        `svc verifier build: ${command.slice(0, 3).join(" ")} failed (exit ${done.status}); is ${repository} reachable and are you logged in?\n`,
      );
      return 1;
    }
  }
  const inspect = run(digestCommand);
  // RepoDigests lists every repository the image was pushed to: take this one's.
  const digest = new RegExp(
    `${escapeRegExp(builder.kind === "cloud" ? "" : `${repository}@`)}(sha256:[0-9a-f]{64})`,
  ).exec(inspect.stdout)?.[1];
  if (inspect.status !== 0 || digest === undefined) {
    io.stderr(
      `svc verifier build: cannot read the pushed digest of ${ref}: ${inspect.stderr || inspect.stdout}\n`,
    );
    return 1;
  }
  const pinned = `${repository}@${digest}`;
  const emptyConfig = mkdtempSync(join(tmpdir(), "svc-anon-"));
  try {
    const pull = run(pullCommand(pinned, emptyConfig));
    if (pull.status !== 0) {
      io.stderr(
        `svc verifier build: ${pinned} is not anonymously pullable (a private repository is an error): ${pull.stderr.trim()}\n`,
      );
      return 1;
    }
  } finally {
    rmSync(emptyConfig, { recursive: true, force: true });
  }
  if (writeContract) writeImplementation(contractFile, options.stage!, pinned, limits);
  const out = {
    image_ref: pinned,
    digest,
    repository,
    tag,
    builder: builder.name,
    ...(writeContract ? { contract_file: contractFile, stage_key: options.stage } : {}),
  };
  io.stdout(
    options.json
      ? `${JSON.stringify(out, null, 2)}\n`
      : `built ${pinned} with ${builder.name}${writeContract ? `; wrote it into ${contractFile} stage ${options.stage}` : ""}\n`,
  );
  return 0;
}

/** The build-and-push commands of each kind of builder. */
function buildCommands(builder: Builder, ref: string, dir: string): string[][] {
  if (builder.kind === "cloud") {
    return [
      [
        "docker",
        "buildx",
        "build",
        "--builder",
        builder.name,
        "--platform",
        "linux/amd64",
        "--tag",
        ref,
        "--push",
        dir,
      ],
    ];
  }
  return [
    ["docker", "build", "--platform", "linux/amd64", "--tag", ref, dir],
    ["docker", "push", ref],
  ];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `memory_mb=512,vcpu=2` as a partial limits object; anything else is a usage error. */
export function parseLimits(
  text: string | undefined,
): Partial<Record<(typeof LIMIT_KEYS)[number], number>> | null {
  if (text === undefined) return null;
  const limits: Partial<Record<(typeof LIMIT_KEYS)[number], number>> = {};
  for (const part of text.split(",")) {
    const [key, value] = part.split("=");
    if (
      !LIMIT_KEYS.includes(key as (typeof LIMIT_KEYS)[number]) ||
      value === undefined ||
      !/^[0-9]+$/.test(value)
    ) {
      throw new UsageError(
        `--limits takes ${LIMIT_KEYS.join(", ")} as key=integer pairs; "${part}" is not one`,
      );
    }
    limits[key as (typeof LIMIT_KEYS)[number]] = Number(value);
  }
  return limits;
}

/** Writes the pinned image into one stage of a contract file, keeping the rest of the document. */
export function writeImplementation(
  contractFile: string,
  stageKey: string,
  imageRef: string,
  limits: Partial<Record<string, number>> | null,
): void {
  const contract = JSON.parse(readFileSync(contractFile, "utf8")) as {
    stages: Array<Record<string, unknown>>;
  };
  const stage = contract.stages.find((s) => s.key === stageKey);
  if (stage === undefined || stage.kind !== "sandbox")
    throw new UsageError(`${contractFile} has no sandbox stage "${stageKey}"`);
  stage.implementation = imageRef;
  if (limits) stage.limits = { ...((stage.limits as object | null) ?? {}), ...limits };
  writeFileSync(contractFile, `${JSON.stringify(contract, null, 2)}\n`);
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

/**
 * `svc verifier status <ref-or-digest> [--json]`: the service's `get_sandbox_image_status` for an
 * image reference, a bare digest or a script runtime name: state, reason and the implementations
 * using it.
 */
export async function verifierStatusCommand(
  image: string,
  options: { json?: boolean; server?: string },
  io: CliIo,
  deps: CliDeps,
): Promise<number> {
  const { client } = await connectService(options, deps);
  try {
    const envelope = await client.callTool("get_sandbox_image_status", { image });
    if (options.json) {
      io.stdout(`${JSON.stringify(envelope, null, 2)}\n`);
      return 0;
    }
    const lines = [
      `image_ref     ${String(envelope.image_ref ?? image)}`,
      `image_digest  ${String(envelope.image_digest ?? "?")}`,
      `state         ${String(envelope.state ?? "?")}${envelope.state_reason ? ` (${String(envelope.state_reason)})` : ""}`,
    ];
    const implementations = Array.isArray(envelope.implementations) ? envelope.implementations : [];
    for (const impl of implementations as Array<Record<string, unknown>>) {
      lines.push(
        `  ${String(impl.verifier_implementation_id)} ${String(impl.contract_id)}/${String(impl.stage_key)} conformance ${String(impl.conformance)}`,
      );
      // Differential conformance: what this version changes against the stage's current one.
      const differential = impl.differential as
        | {
            differential_against_implementation_id: string | null;
            disagreements: Array<Record<string, unknown>>;
          }
        | undefined;
      if (differential?.differential_against_implementation_id) {
        lines.push(
          `    compared with ${differential.differential_against_implementation_id}: ${differential.disagreements.length} fixture(s) differ`,
        );
        for (const d of differential.disagreements) {
          lines.push(
            `      ${String(d.fixture_key)}: ${String(d.result)} here, ${String(d.against_result)} there`,
          );
        }
      }
    }
    io.stdout(`${lines.join("\n")}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ServiceCallError)) throw error;
    io.stderr(`svc verifier status: ${error.code}: ${error.message}\n`);
    return 1;
  } finally {
    await client.close();
  }
}
