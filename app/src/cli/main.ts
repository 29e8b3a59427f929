import { Command, CommanderError } from "commander";
import { type CliIo, processIo, UsageError } from "./cli-io.ts";
import { initCommand } from "./init-command.ts";
import { lintCommand } from "./lint-command.ts";
import { loginCommand, logoutCommand } from "./login-command.ts";
import { LATER_COMMANDS, notAvailable } from "./not-available.ts";

/** Runs `svc` with the given arguments (without node and script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode = 0;
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
