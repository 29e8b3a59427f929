import { spawnSync } from "node:child_process";

/** Where `svc verifier build` builds: a buildx cloud builder by name, or the local daemon. */
export type Builder = { kind: "cloud"; name: string } | { kind: "local"; name: "default" };

/** Runs one command and reports its exit status and output (spawnSync in the CLI). */
export type CommandRunner = (
  argv: readonly string[],
  input?: string,
) => { status: number | null; stdout: string; stderr: string };

export const runCommand: CommandRunner = (argv, input) => {
  const done = spawnSync(argv[0]!, argv.slice(1), {
    encoding: "utf8",
    ...(input === undefined ? {} : { input }),
  });
  return { status: done.status, stdout: done.stdout ?? "", stderr: done.stderr ?? done.error?.message ?? "" };
};

/**
 * The environment a cloud builder is created from (spec 4.2's second choice): the Docker Build
 * Cloud builder `<org>/<name>` and the Docker Hub account and access token that may use it.
 */
export const CLOUD_BUILDER_ENV = ["SVC_CLOUD_BUILDER", "DOCKER_USERNAME", "DOCKER_PAT"] as const;

/**
 * The builder by spec 4.2's order: a cloud builder `docker buildx ls` already lists; else one
 * created from environment credentials (`docker login` with DOCKER_USERNAME and DOCKER_PAT, then
 * `docker buildx create --driver cloud $SVC_CLOUD_BUILDER`); else the local daemon when
 * `docker info` answers; else an error saying what was tried. `create: false` (dry runs) names
 * the builder it would create instead of creating it.
 */
export function pickBuilder(
  env: Readonly<Record<string, string | undefined>>,
  run: CommandRunner = runCommand,
  options: { create: boolean } = { create: true },
): Builder | { kind: "none"; reason: string } {
  const listed = run(["docker", "buildx", "ls"]);
  if (listed.status === 0) {
    const cloud = listed.stdout
      .split("\n")
      .map((line) => (line.split(/\s+/)[0] ?? "").replace(/\*$/, ""))
      .find((name) => name.startsWith("cloud-"));
    if (cloud) return { kind: "cloud", name: cloud };
  }
  const [builderEnv, userEnv, tokenEnv] = CLOUD_BUILDER_ENV;
  const wanted = env[builderEnv];
  const user = env[userEnv];
  const token = env[tokenEnv];
  if (wanted && user && token) {
    // buildx names a cloud builder cloud-<org>-<name>.
    const name = `cloud-${wanted.replace("/", "-")}`;
    if (!options.create) return { kind: "cloud", name };
    const login = run(["docker", "login", "--username", user, "--password-stdin"], token);
    if (login.status !== 0) {
      return {
        kind: "none",
        reason: `docker login as ${user} (${userEnv}, ${tokenEnv}) failed: ${login.stderr.trim()}`,
      };
    }
    const created = run(["docker", "buildx", "create", "--driver", "cloud", wanted]);
    if (created.status !== 0) {
      return {
        kind: "none",
        reason: `creating the cloud builder ${wanted} (${builderEnv}) failed: ${created.stderr.trim()}`,
      };
    }
    return { kind: "cloud", name: created.stdout.trim() || name };
  }
  const info = run(["docker", "info", "--format", "{{.ServerVersion}}"]);
  if (info.status === 0) return { kind: "local", name: "default" };
  return {
    kind: "none",
    reason:
      `no builder: docker buildx lists no cloud builder, ${CLOUD_BUILDER_ENV.join(", ")} are not all set, ` +
      `and no local Docker daemon answers (${(info.stderr || "docker not found").trim().split("\n")[0]})`,
  };
}
