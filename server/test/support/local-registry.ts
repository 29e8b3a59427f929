import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { stopChild } from "./bounded-teardown.ts";

const run = promisify(execFile);

/** Debian's docker-registry package (.ci/run installs it). */
export const REGISTRY_BINARY = "/usr/bin/docker-registry";

/** A real registry on loopback, storing in a temporary folder, for the custom image tests. */
export interface LocalRegistry {
  /** `127.0.0.1:<port>`: Docker pushes to and pulls from loopback registries over plain HTTP. */
  host: string;
  stop(): Promise<void>;
}

/**
 * Starts `docker-registry serve` on a free loopback port with filesystem storage and resolves once
 * its /v2/ endpoint answers. Anonymous unless `login` is given: then it is a private registry
 * (htpasswd, bcrypt from python3's crypt module) that only that user may push to or pull from.
 */
export async function startLocalRegistry(login?: { user: string; password: string }): Promise<LocalRegistry> {
  const dir = mkdtempSync(join(tmpdir(), "svc-registry-"));
  const port = await freePort();
  const config = join(dir, "config.yml");
  const auth: string[] = [];
  if (login) {
    const { stdout } = await run("python3", [
      "-W",
      "ignore",
      "-c",
      "import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH)))",
      login.password,
    ]);
    // The registry reads bcrypt's $2a$ form; python writes the same hash as $2b$.
    writeFileSync(join(dir, "htpasswd"), `${login.user}:${stdout.trim().replace(/^\$2b\$/, "$2a$")}\n`);
    auth.push("auth:", "  htpasswd:", "    realm: svc-test", `    path: ${join(dir, "htpasswd")}`);
  }
  writeFileSync(
    config,
    [
      "version: 0.1",
      "log:",
      "  level: error",
      "storage:",
      "  filesystem:",
      `    rootdirectory: ${join(dir, "data")}`,
      "  delete:",
      "    enabled: true",
      "http:",
      `  addr: 127.0.0.1:${port}`,
      ...auth,
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(REGISTRY_BINARY, ["serve", config], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const host = `127.0.0.1:${port}`;
  // Readiness, not an assertion: the registry takes a moment to listen.
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    const answered = await fetch(`http://${host}/v2/`).then(
      // 401 is a private registry asking for its login: it is up.
      (r) => r.status === 200 || r.status === 401,
      () => false,
    );
    if (answered) return { host, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`docker-registry did not start on ${host}: ${stderr}`);
}

/** Whether this machine has the registry binary. */
export function registryInstalled(): boolean {
  return existsSync(REGISTRY_BINARY);
}

/** Removes a pulled image from the engine (cleanup after a test). */
export async function removeImage(ref: string): Promise<void> {
  await run("docker", ["image", "rm", "-f", ref]).catch(() => undefined);
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
