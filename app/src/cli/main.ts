import { Command, CommanderError } from "commander";
import { type CliDeps, defaultDeps } from "./cli-deps.ts";
import { type CliIo, processIo, UsageError } from "./cli-io.ts";
import { type DraftOptions, draftCommand } from "./draft-command.ts";
import { initCommand } from "./init-command.ts";
import { lintCommand } from "./lint-command.ts";
import { loginCommand, logoutCommand } from "./login-command.ts";
import { LATER_COMMANDS, notAvailable } from "./not-available.ts";
import { uploadCommand } from "./upload-command.ts";
import { whoamiCommand } from "./whoami-command.ts";

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
  const cli = defaultDeps(deps);
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
      exitCode = await lintCommand(dir, options, io);
    });

  program
    .command("init")
    .description("scaffold a package that lints clean")
    .argument("[dir]", "where to create it", ".")
    .option("--campaign", "scaffold a campaign folder with one problem")
    .action(async (dir: string, options: { campaign?: boolean }) => {
      exitCode = await initCommand(dir, options, io);
    });

  program
    .command("login")
    .description(
      "store a credential for the service: --token <token> from an operator (browser and --mcp sign-in come later)",
    )
    .option("--token <token>", "a token issued by `svc-server token issue`")
    .option("--server <url>", "the service's base address (default SVC_BASE_URL, else http://127.0.0.1:8787)")
    .option("--mcp", "sign in with a one-time code approved through authorize_cli (not available yet)")
    .action(async (options: { token?: string; server?: string; mcp?: boolean }) => {
      exitCode = await loginCommand(options, io);
    });

  program
    .command("logout")
    .description("forget the stored credential")
    .action(async () => {
      exitCode = await logoutCommand(io);
    });

  const serverOption = "the service's base address (default SVC_BASE_URL, else the one svc login stored)";
  program
    .command("upload")
    .description("lint, upload and validate a package as one archive; publishes nothing")
    .argument("<dir>", "package directory")
    .option("--json", "print the validation envelope with upload_id and content_hash")
    .option("--server <url>", serverOption)
    .action(async (dir: string, options: { json?: boolean; server?: string }) => {
      exitCode = await uploadCommand(dir, options, io, cli);
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
        exitCode = await draftCommand(dir, options, io, cli);
      });
  }

  program
    .command("whoami")
    .description("show who the credential signs in as: handle, id, work role, scopes")
    .option("--json", "print the whoami envelope")
    .option("--server <url>", serverOption)
    .action(async (options: { json?: boolean; server?: string }) => {
      exitCode = await whoamiCommand(options, io, cli);
    });

  for (const [name, command] of Object.entries(LATER_COMMANDS)) {
    program
      .command(`${name}${command.args ? ` ${command.args}` : ""}`)
      .description(`${command.summary} (arrives with ${command.arrives})`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        exitCode = notAvailable(name, command.arrives, io);
      });
  }
  const verifier = program
    .command("verifier")
    .description("build and inspect checker images (arrives with verification)");
  for (const [name, args] of [
    ["build", "<checker-dir>"],
    ["status", "<ref-or-digest>"],
  ] as const) {
    verifier
      .command(`${name} ${args}`)
      .description(name === "build" ? "build, push and pin a checker image" : "show a sandbox image's state")
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        exitCode = notAvailable(`verifier ${name}`, "verification", io);
      });
  }

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
