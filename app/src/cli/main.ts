import { Command, CommanderError } from "commander";
import type { AttestationVerifyOptions } from "./attestation-command.ts";
import type { CliDeps } from "./cli-deps.ts";
import { type CliIo, processIo, UsageError } from "./cli-io.ts";
import type { DraftOptions } from "./draft-command.ts";
import type { TestOptions } from "./test-command.ts";
import type { VerifierBuildOptions } from "./verifier-command.ts";
import type { VerifyOptions } from "./verify-command.ts";

/**
 * Runs `svc` with the given arguments (without node and script) and returns the exit code.
 * `deps` replaces the environment, the clock, sleeping and the service client (tests).
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = processIo(),
  deps: Partial<CliDeps> = {},
): Promise<number> {
  let exitCode = 0;
  // Each command's modules load when it runs (dynamic import): `svc lint` starts without the MCP
  // client, and only the sandbox commands load dockerode.
  const services = async () => (await import("./cli-deps.ts")).defaultDeps(deps);
  const program = new Command("svc")
    .description("Author, lint and publish verifiable problems for the svc service.")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();

  program
    .command("lint")
    .description("lint a package offline and print its plan and plan_hash")
    .argument("<dir>", "package directory")
    .option("--fix", "write fixture content_hash and size_bytes from the files")
    .option("--json", "print {ok, errors, notes, plan, plan_hash} as JSON")
    .action(async (dir: string, options: { fix?: boolean; json?: boolean }) => {
      exitCode = await (await import("./lint-command.ts")).lintCommand(dir, options, io);
    });

  program
    .command("init")
    .description("scaffold a package that lints clean")
    .argument("[dir]", "where to create it", ".")
    .option("--campaign", "scaffold a campaign folder with one problem")
    .action(async (dir: string, options: { campaign?: boolean }) => {
      exitCode = await (await import("./init-command.ts")).initCommand(dir, options, io);
    });

  program
    .command("login")
    .description(
      "sign in to the service and store the credential: in a browser (default), --mcp (a code your agent approves), or --token <token> from an operator",
    )
    .option("--token <token>", "a token issued by `svc-server token issue`")
    .option("--server <url>", "the service's base address (default SVC_BASE_URL, else http://127.0.0.1:8787)")
    .option("--mcp", "sign in with a one-time code your connected agent approves with authorize_cli")
    .action(async (options: { token?: string; server?: string; mcp?: boolean }) => {
      const cli = await services();
      const { loginCommand } = await import("./login-command.ts");
      exitCode = await loginCommand(options, io, cli.env, { openBrowser: cli.openBrowser, sleep: cli.sleep });
    });

  program
    .command("logout")
    .description("revoke the stored credential on the service and forget it")
    .action(async () => {
      exitCode = await (await import("./login-command.ts")).logoutCommand(io, (await services()).env);
    });

  const serverOption = "the service's base address (default SVC_BASE_URL, else the one svc login stored)";
  program
    .command("upload")
    .description("lint, upload and validate a package as one archive; publishes nothing")
    .argument("<dir>", "package directory")
    .option("--json", "print the validation envelope with upload_id and content_hash")
    .option("--server <url>", serverOption)
    .action(async (dir: string, options: { json?: boolean; server?: string }) => {
      exitCode = await (await import("./upload-command.ts")).uploadCommand(
        dir,
        options,
        io,
        await services(),
      );
    });

  for (const [name, summary] of [
    ["draft", "lint, shard, upload, validate and publish a package as private work"],
    ["publish", "identical to draft"],
  ] as const) {
    program
      .command(name)
      .description(summary)
      .argument("<dir>", "package directory")
      .option("--json", "print the summary as JSON")
      .option("--fresh", "ignore <dir>/.svc/publish-state.json and start over")
      .option("--verify", "replay every shard, published ones included")
      .option("--shard-problems <n>", "at most n problems per shard (lowers the ceiling of 300)")
      .option("--shard-bytes <n>", "at most n bytes zipped per shard (lowers the ceiling of 24 MiB)")
      .option("--server <url>", serverOption)
      .action(async (dir: string, options: DraftOptions) => {
        exitCode = await (await import("./draft-command.ts")).draftCommand(
          dir,
          options,
          io,
          await services(),
        );
      });
  }

  program
    .command("whoami")
    .description("show who the credential signs in as: handle, id, work role, scopes")
    .option("--json", "print the whoami envelope")
    .option("--server <url>", serverOption)
    .action(async (options: { json?: boolean; server?: string }) => {
      exitCode = await (await import("./whoami-command.ts")).whoamiCommand(options, io, await services());
    });

  const attestation = program
    .command("attestation")
    .description("check the service's signed attestations of verification runs (docs/attestations.md)");
  attestation
    .command("verify")
    .description(
      "check a run's attestations without trusting the service: signatures, subjects, inclusion in the transparency log, and the log's consistency with what this machine saw",
    )
    .argument(
      "<file|run-id>",
      "a run id (vrn_..., read with the stored credential) or a saved attestations document",
    )
    .option(
      "--artifact <path>",
      "a local file that must be a subject of the attestation (repeatable)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option("--json", "print {ok, checks, statements} as JSON")
    .option("--server <url>", serverOption)
    .action(async (target: string, options: AttestationVerifyOptions) => {
      exitCode = await (await import("./attestation-command.ts")).attestationVerifyCommand(
        target,
        options,
        io,
        await services(),
      );
    });

  program
    .command("test")
    .description("lint a package and run every sandbox stage's conformance fixtures locally")
    .argument("<dir>", "package directory")
    .option("--json", "print {ok, sandbox, stages: [{stage_key, status, results...}]} as JSON")
    .option("--image <ref>", "Docker image realising svc-runtime/python:1 (default SVC_PYTHON_IMAGE)")
    .option("--sandbox <backend>", "force bwrap or docker (default SVC_SANDBOX, else detected)")
    .action(async (dir: string, options: TestOptions) => {
      exitCode = await (await import("./test-command.ts")).testCommand(
        dir,
        options,
        io,
        (await services()).env,
      );
    });

  program
    .command("verify")
    .description(
      "run a published problem's sandbox stages on local files (no quota, nothing submitted); with --replay, re-run a verified run's sandbox stages here and compare them with its signed attestation",
    )
    .argument("<problem>", "problem id or slug (with --replay: the run id, vrn_...)")
    .option(
      "--replay",
      "replay the run <problem> names and compare result, score and evidence digest with its attestation",
    )
    .option("--artifact <role=path...>", "an artifact for a role (repeat for each role)")
    .option("--revision <n>", "revision number (default current)")
    .option(
      "--json",
      "print {ok, result, score, problem, revision, verifier_contract_id, sandbox, submitted, stages} as JSON",
    )
    .option("--image <ref>", "Docker image realising svc-runtime/python:1 (default SVC_PYTHON_IMAGE)")
    .option("--sandbox <backend>", "force bwrap or docker (default SVC_SANDBOX, else detected)")
    .option("--server <url>", serverOption)
    .action(async (problem: string, options: VerifyOptions & { replay?: boolean }) => {
      if (options.replay) {
        exitCode = await (await import("./replay-command.ts")).replayCommand(
          problem,
          options,
          io,
          await services(),
        );
        return;
      }
      exitCode = await (await import("./verify-command.ts")).verifyCommand(
        problem,
        options,
        io,
        await services(),
      );
    });

  const verifier = program.command("verifier").description("build and inspect checker images");
  verifier
    .command("build")
    .description(
      "build a checker image for linux/amd64, push it, check it pulls anonymously, pin it in the contract",
    )
    .argument("<checker-dir>", "directory with a Dockerfile")
    .option("--repository <registry/repo>", "where to push (default SVC_IMAGE_REPOSITORY)")
    .option("--tag <tag>", "tag to push under before pinning by digest")
    .option(
      "--contract <path>",
      "contract to write the pinned reference into (default ../verifier-contract.json)",
    )
    .option("--stage <key>", "the sandbox stage whose implementation becomes the image")
    .option("--limits <pairs>", "memory_mb=...,vcpu=...,disk_mb=...,timeout_seconds=...")
    .option("--json", "print {image_ref, digest, repository, tag, builder, contract_file?, stage_key?}")
    .option("--dry-run", "print the commands and change nothing")
    .action(async (dir: string, options: VerifierBuildOptions) => {
      const { verifierBuildCommand } = await import("./verifier-command.ts");
      exitCode = await verifierBuildCommand(dir, options, io, (await services()).env);
    });
  verifier
    .command("status")
    .description("show a sandbox image's state on the service (get_sandbox_image_status)")
    .argument("<ref-or-digest>", "image reference, bare digest or script runtime name")
    .option("--json", "print the tool's envelope")
    .option("--server <url>", serverOption)
    .action(async (image: string, options: { json?: boolean; server?: string }) => {
      const { verifierStatusCommand } = await import("./verifier-command.ts");
      exitCode = await verifierStatusCommand(image, options, io, await services());
    });

  verifier
    .command("yank")
    .description(
      "withdraw a verifier implementation you published (or any, as an administrator), once, with a reason",
    )
    .argument("<vfi-id>", "the VerifierImplementation id")
    .option("--reason <markdown>", "why: kept with the yank (1 to 10000 characters)")
    .option("--json", "print the tool's envelope")
    .option("--server <url>", serverOption)
    .action(async (id: string, options: { reason?: string; json?: boolean; server?: string }) => {
      exitCode = await (await import("./yank-command.ts")).yankCommand(
        "verifier",
        id,
        options,
        io,
        await services(),
      );
    });

  const protocol = program.command("protocol").description("maintain published review protocols");
  protocol
    .command("yank")
    .description("withdraw a review protocol you published from recommendation, once, with a reason")
    .argument("<rpt-id>", "the ReviewProtocol id")
    .option("--reason <markdown>", "why: kept with the yank (1 to 10000 characters)")
    .option("--json", "print the tool's envelope")
    .option("--server <url>", serverOption)
    .action(async (id: string, options: { reason?: string; json?: boolean; server?: string }) => {
      exitCode = await (await import("./yank-command.ts")).yankCommand(
        "protocol",
        id,
        options,
        io,
        await services(),
      );
    });

  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with code 0; anything else is a usage error.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof UsageError) {
      io.stderr(`svc: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
