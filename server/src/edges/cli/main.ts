import { type CliIo, processIo, UsageError } from "@svc/app";
import { type Access, type Capability, GrantedRole, Scope } from "@svc/schemas";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { inTransaction } from "../../core/db/in-transaction.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import { readPublicAddress } from "../../core/services/public-address.ts";
import { registerExternalSystem } from "../../external-systems/register-external-system.ts";
import { issueSignInLink } from "../../sessions/sign-in-links.ts";
import { listAccessGrants } from "../../users/access-grant.ts";
import { addUser } from "../../users/add-user.ts";
import { isCapability } from "../../users/capability.ts";
import { getUserByHandle } from "../../users/get-user-by-handle.ts";
import { inviteGitHubLogin } from "../../users/github-account.ts";
import { grantAccess, isAccess, revokeAccess } from "../../users/grant-access.ts";
import { grantCapability } from "../../users/grant-capability.ts";
import { grantRole } from "../../users/grant-role.ts";
import { issueToken } from "../../users/issue-token.ts";
import { liveRole } from "../../users/live-role.ts";
import { revokeToken } from "../../users/revoke-token.ts";
import { isScope } from "../../users/scope.ts";
import { addAttestationKeyCommands } from "./attestation-key-commands.ts";
import { createLogger } from "./create-logger.ts";
import { addAttesterRemovalCommand, addOperatorWorkCommands } from "./operator-work-commands.ts";
import { addRuntimeCommands } from "./runtime-commands.ts";
import { serveCommand } from "./serve-command.ts";
import { type ServerConfig, serverConfig } from "./server-config.ts";
import { withMigratedDatabase } from "./with-migrated-database.ts";
import { workerCommand } from "./worker-command.ts";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Runs `svc-server` with the given arguments (without node and script) and returns the exit
 * code: 0 done, 1 failed (an `{"error": ...}` line on stderr), 2 bad usage. Operator commands
 * print one JSON object on stdout and log to stderr; `serve` logs JSON to stdout.
 */
export async function runServerCli(
  argv: readonly string[],
  { io = processIo(), env = process.env }: { io?: CliIo; env?: Env } = {},
): Promise<number> {
  let exitCode = 0;
  const print = (value: unknown) => io.stdout(`${JSON.stringify(value)}\n`);
  const config = (): ServerConfig => serverConfig(env);
  const operatorLog = () => createLogger({ level: env.LOG_LEVEL || "warn", fd: 2 });

  const program = new Command("svc-server")
    .description(
      "Run the svc service and its operator commands (DATABASE_URL, else the embedded PostgreSQL).",
    )
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();

  program
    .command("serve")
    .description("migrate the database and serve HTTP on HOST:PORT (default 127.0.0.1:8787) until SIGTERM")
    .action(async () => {
      const settings = config();
      exitCode = await serveCommand(settings, createLogger({ level: settings.logLevel ?? "info", fd: 1 }));
    });

  program
    .command("worker")
    .description("run verification jobs (SVC_WORKERS at once) without serving HTTP, until SIGTERM")
    .action(async () => {
      const settings = config();
      exitCode = await workerCommand(settings, createLogger({ level: settings.logLevel ?? "info", fd: 1 }));
    });

  program
    .command("migrate")
    .description('apply pending migrations and print {"applied": [...]}')
    .action(async () => {
      const applied = await withMigratedDatabase(config(), operatorLog(), async (_sql, applied) => applied);
      print({ applied });
    });

  const user = program.command("user").description("manage users");
  user
    .command("add")
    .description('create a user and print {"user_id": ...}')
    .argument(
      "<handle>",
      "lowercase letters and digits, groups joined by single hyphens, at most 39 characters",
    )
    .option("--admin", "give the user the administrator role")
    .option(
      "--github <login>",
      "invite the GitHub account with this login: its first Sign in with GitHub links it to this user",
    )
    .option(
      "--trusted-author",
      "give the user the trusted author role (an author who may list their own work)",
    )
    .option(
      "--capability <capability>",
      "grant a capability: author or custom_verifier (repeatable)",
      collect(isCapability, "author or custom_verifier (trusted author is a role: --trusted-author)"),
    )
    .action(
      async (
        handle: string,
        options: { admin?: boolean; trustedAuthor?: boolean; capability?: Capability[]; github?: string },
      ) => {
        const created = await withMigratedDatabase(config(), operatorLog(), (sql) =>
          inTransaction(sql, async (tx) => {
            const added = await addUser(tx, { handle, isAdmin: options.admin === true });
            if (options.github !== undefined) await inviteGitHubLogin(tx, added.id, options.github);
            for (const capability of options.capability ?? []) {
              await grantCapability(tx, { userId: added.id, capability, grantedBy: null });
            }
            if (options.trustedAuthor === true) {
              await grantRole(tx, { userId: added.id, role: GrantedRole.trusted_author, grantedBy: null });
            }
            return added;
          }),
        );
        print({ user_id: created.id });
      },
    );

  // Operator grants and revocations are recorded with a null grantor: "an operator, with svc-server".
  const ACCESS = "author, custom_verifier, trusted_author or administrator";
  user
    .command("grant")
    .description(
      `grant a capability or role (${ACCESS}); recorded with grantor null (an operator) and the time`,
    )
    .argument("<handle>", "the user")
    .argument("<access>", ACCESS, parseAccess)
    .action(async (handle: string, access: Access) => {
      const grant = await withMigratedDatabase(config(), operatorLog(), async (sql) =>
        grantAccess(sql, (await getUserByHandle(sql, handle)).id, access, null),
      );
      print({ user_id: grant.user_id, access, granted_by: null, granted_at: grant.granted_at.toISOString() });
    });
  user
    .command("revoke")
    .description(
      `revoke a capability or role (${ACCESS}); the grant is kept with its revocation, effective on the user's next request`,
    )
    .argument("<handle>", "the user")
    .argument("<access>", ACCESS, parseAccess)
    .action(async (handle: string, access: Access) => {
      const grant = await withMigratedDatabase(config(), operatorLog(), async (sql) =>
        revokeAccess(sql, (await getUserByHandle(sql, handle)).id, access, null),
      );
      print({
        user_id: grant.user_id,
        access,
        revoked_by: null,
        revoked_at: grant.revoked_at!.toISOString(),
      });
    });
  user
    .command("show")
    .description("print a user's live roles and capabilities and every grant, revoked ones included")
    .argument("<handle>", "the user")
    .action(async (handle: string) => {
      const shown = await withMigratedDatabase(config(), operatorLog(), async (sql) => {
        const found = await getUserByHandle(sql, handle);
        const live = await liveRole(sql, found.id);
        return {
          user: { id: found.id, handle: found.handle, created_at: found.created_at.toISOString() },
          roles: live.roles,
          capabilities: live.capabilities,
          grants: await listAccessGrants(sql, found.id),
        };
      });
      print(shown);
    });

  user
    .command("link-github")
    .description(
      "invite a GitHub account for an existing user: its first Sign in with GitHub links it (by GitHub's numeric id)",
    )
    .argument("<handle>", "the user")
    .argument("<login>", "the GitHub login")
    .action(async (handle: string, login: string) => {
      await withMigratedDatabase(config(), operatorLog(), async (sql) =>
        inviteGitHubLogin(sql, (await getUserByHandle(sql, handle)).id, login),
      );
      print({ handle, github_login: login, linked: false });
    });

  user
    .command("login-link")
    .description(
      'print {"url": ..., "expires_at": ...}: a one-time sign-in link for the user, valid 15 minutes; give it to them privately',
    )
    .argument("<handle>", "the user the link signs in")
    .option("--return-to <path>", "a path on the service to land on once signed in (default /settings)")
    .action(async (handle: string, options: { returnTo?: string }) => {
      // The running service's own address, never this shell's PORT or SVC_BASE_URL.
      const link = await withMigratedDatabase(config(), operatorLog(), async (sql) =>
        issueSignInLink(
          { sql, clock: () => new Date() },
          { handle, baseUrl: await readPublicAddress(sql), returnTo: options.returnTo },
        ),
      );
      print({ url: link.url, expires_at: link.expires_at.toISOString() });
    });

  const token = program.command("token").description("issue and revoke bearer tokens");
  token
    .command("issue")
    .description('issue a bearer token and print {"token": ...}; it is shown once and only its hash is kept')
    .argument("<handle>", "the user the token acts as")
    .option(
      "--scope <scope>",
      "read or contribute (repeatable; contribute implies read; default both)",
      collect(isScope, "read or contribute"),
    )
    .action(async (handle: string, options: { scope?: Scope[] }) => {
      const scopes = options.scope ?? [Scope.read, Scope.contribute];
      const issued = await withMigratedDatabase(config(), operatorLog(), (sql) =>
        issueToken(sql, handle, scopes),
      );
      print({ token: issued.token });
    });
  token
    .command("revoke")
    .description("revoke a token by its prefix (its first 12 characters, svc_ and 8 more)")
    .argument("<token-prefix>", "the token's first 12 characters (or the whole token)")
    .action(async (prefix: string) => {
      const revoked = await withMigratedDatabase(config(), operatorLog(), (sql) => revokeToken(sql, prefix));
      print({ token_prefix: revoked.prefix, revoked_at: revoked.revoked_at.toISOString() });
    });

  const externalSystem = program
    .command("external-system")
    .description("partner systems that attest Contracts' external stages");
  externalSystem
    .command("register")
    .description(
      'register (or update) a partner system by the name Contracts give in external_system and add the users who may attest for it; prints {"external_system": ...}',
    )
    .argument("<system>", "the system's name, exactly as external_system gives it (1 to 200 characters)")
    .requiredOption("--hours <n>", "how long a run waits for its attestation, 1 to 8760 hours", parseHours)
    .option(
      "--attester <handle>",
      "a user who may attest for the system (repeatable; added, never removed)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .action(async (system: string, options: { hours: number; attester?: string[] }) => {
      const registered = await withMigratedDatabase(config(), operatorLog(), (sql) =>
        registerExternalSystem(sql, null, {
          system,
          attestation_hours: options.hours,
          attesters: options.attester ?? [],
        }),
      );
      print(registered);
    });

  const operatorContext = { config, operatorLog, print, write: io.stdout };
  addAttesterRemovalCommand(externalSystem, operatorContext);
  addOperatorWorkCommands(program, operatorContext);
  addAttestationKeyCommands(program, operatorContext);
  addRuntimeCommands(program, operatorContext);

  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      io.stderr(`svc-server: ${error.message}\n`);
      return 2;
    }
    if (error instanceof ServiceError) {
      io.stderr(`${JSON.stringify(error.toBody())}\n`);
      return 1;
    }
    io.stderr(
      `${JSON.stringify(new ServiceError("internal", error instanceof Error ? error.message : String(error)).toBody())}\n`,
    );
    return 1;
  }
}

/** The parser of `--hours`: a whole number of hours, 1 to 8760. */
function parseHours(value: string): number {
  const hours = Number(value);
  if (!/^\d+$/.test(value) || hours < 1 || hours > 8760) {
    throw new InvalidArgumentError("use a whole number of hours from 1 to 8760");
  }
  return hours;
}

/** The parser of an `<access>` argument. */
function parseAccess(value: string): Access {
  if (!isAccess(value)) {
    throw new InvalidArgumentError("use author, custom_verifier, trusted_author or administrator");
  }
  return value;
}

/** A repeatable option's parser: checks each value and collects them in order, without repeats. */
function collect<T extends string>(is: (value: string) => value is T, expected: string) {
  return (value: string, previous: T[] | undefined): T[] => {
    if (!is(value)) throw new InvalidArgumentError(`use ${expected}`);
    return previous?.includes(value) ? previous : [...(previous ?? []), value];
  };
}
