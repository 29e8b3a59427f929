import { describe, expect, it } from "vitest";
import { type CommandRunner, pickBuilder } from "../../src/cli/pick-builder.ts";

// Docker Build Cloud is outside this machine, so the cloud paths are driven by the docker CLI's
// recorded answers; the local-daemon path runs for real in custom-image-registry.test.ts.
const BUILDX_LS_WITH_CLOUD = [
  "NAME/NODE                     DRIVER/ENDPOINT                 STATUS    BUILDKIT   PLATFORMS",
  "cloud-acme-builder            cloud                                                 ",
  " \\_ linux-amd64                cloud://acme/builder_linux-amd64  running   v0.20.0    linux/amd64*",
  "default*                      docker                                                ",
  " \\_ default                    default                         running   v0.20.0    linux/amd64",
].join("\n");
const BUILDX_LS_LOCAL_ONLY = [
  "NAME/NODE     DRIVER/ENDPOINT   STATUS    BUILDKIT   PLATFORMS",
  "default*      docker",
  " \\_ default    default           running   v0.20.0    linux/amd64",
].join("\n");
const CREDENTIALS = {
  SVC_CLOUD_BUILDER: "acme/builder",
  DOCKER_USERNAME: "acme-bot",
  DOCKER_PAT: "dckr_pat_x",
};

/** A docker CLI answering from a table of `argv prefix -> answer`, recording every call. */
function dockerAnswering(answers: Record<string, { status: number; stdout?: string; stderr?: string }>) {
  const calls: { argv: string; input?: string }[] = [];
  const run: CommandRunner = (argv, input) => {
    const line = argv.join(" ");
    calls.push({ argv: line, ...(input === undefined ? {} : { input }) });
    const key = Object.keys(answers).find((prefix) => line.startsWith(prefix));
    const answer = key ? answers[key]! : { status: 127, stderr: "docker: not found" };
    return { status: answer.status, stdout: answer.stdout ?? "", stderr: answer.stderr ?? "" };
  };
  return { run, calls };
}

describe("pickBuilder follows spec 4.2's order", () => {
  it("takes a cloud builder buildx already lists before anything else", () => {
    const docker = dockerAnswering({
      "docker buildx ls": { status: 0, stdout: BUILDX_LS_WITH_CLOUD },
      "docker info": { status: 0, stdout: "28.2.2" },
    });
    expect(pickBuilder(CREDENTIALS, docker.run)).toEqual({ kind: "cloud", name: "cloud-acme-builder" });
    expect(docker.calls.map((call) => call.argv)).toEqual(["docker buildx ls"]);
  });

  it("creates a cloud builder from environment credentials, the token on stdin only", () => {
    const docker = dockerAnswering({
      "docker buildx ls": { status: 0, stdout: BUILDX_LS_LOCAL_ONLY },
      "docker login": { status: 0, stdout: "Login Succeeded" },
      "docker buildx create": { status: 0, stdout: "cloud-acme-builder\n" },
      "docker info": { status: 0, stdout: "28.2.2" },
    });
    expect(pickBuilder(CREDENTIALS, docker.run)).toEqual({ kind: "cloud", name: "cloud-acme-builder" });
    expect(docker.calls).toEqual([
      { argv: "docker buildx ls" },
      { argv: "docker login --username acme-bot --password-stdin", input: "dckr_pat_x" },
      { argv: "docker buildx create --driver cloud acme/builder" },
    ]);
    expect(docker.calls.some((call) => call.argv.includes("dckr_pat_x"))).toBe(false);
  });

  it("names the builder it would create without creating it on a dry run", () => {
    const docker = dockerAnswering({ "docker buildx ls": { status: 0, stdout: BUILDX_LS_LOCAL_ONLY } });
    expect(pickBuilder(CREDENTIALS, docker.run, { create: false })).toEqual({
      kind: "cloud",
      name: "cloud-acme-builder",
    });
    expect(docker.calls.map((call) => call.argv)).toEqual(["docker buildx ls"]);
  });

  it("fails clearly when the credentials are refused, without falling back to the local daemon", () => {
    const docker = dockerAnswering({
      "docker buildx ls": { status: 0, stdout: BUILDX_LS_LOCAL_ONLY },
      "docker login": { status: 1, stderr: "unauthorized: incorrect username or password" },
      "docker info": { status: 0, stdout: "28.2.2" },
    });
    const picked = pickBuilder(CREDENTIALS, docker.run);
    expect(picked).toMatchObject({ kind: "none" });
    expect(picked.kind === "none" && picked.reason).toMatch(
      /docker login as acme-bot .*DOCKER_PAT.*unauthorized/,
    );
  });

  it("fails clearly when the cloud builder cannot be created", () => {
    const docker = dockerAnswering({
      "docker buildx ls": { status: 0, stdout: BUILDX_LS_LOCAL_ONLY },
      "docker login": { status: 0 },
      "docker buildx create": { status: 1, stderr: "ERROR: failed to find cloud builder acme/builder" },
    });
    const picked = pickBuilder(CREDENTIALS, docker.run);
    expect(picked.kind === "none" && picked.reason).toMatch(
      /creating the cloud builder acme\/builder \(SVC_CLOUD_BUILDER\)/,
    );
  });

  it("uses the local daemon when only some credentials are set", () => {
    const docker = dockerAnswering({
      "docker buildx ls": { status: 0, stdout: BUILDX_LS_LOCAL_ONLY },
      "docker info": { status: 0, stdout: "28.2.2" },
    });
    expect(
      pickBuilder({ SVC_CLOUD_BUILDER: "acme/builder", DOCKER_USERNAME: "acme-bot" }, docker.run),
    ).toEqual({
      kind: "local",
      name: "default",
    });
    expect(docker.calls.some((call) => call.argv.startsWith("docker login"))).toBe(false);
  });

  it("uses the local daemon when buildx itself is missing", () => {
    const docker = dockerAnswering({
      "docker buildx ls": { status: 1, stderr: "docker: 'buildx' is not a docker command." },
      "docker info": { status: 0, stdout: "28.2.2" },
    });
    expect(pickBuilder({}, docker.run)).toEqual({ kind: "local", name: "default" });
  });

  it("says what it tried when there is no builder at all", () => {
    const docker = dockerAnswering({
      "docker info": {
        status: 1,
        stderr: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock.\nmore",
      },
    });
    const picked = pickBuilder({}, docker.run);
    expect(picked.kind).toBe("none");
    expect(picked.kind === "none" && picked.reason).toBe(
      "no builder: docker buildx lists no cloud builder, SVC_CLOUD_BUILDER, DOCKER_USERNAME, DOCKER_PAT are not all set, " +
        "and no local Docker daemon answers (Cannot connect to the Docker daemon at unix:///var/run/docker.sock.)",
    );
  });
});
