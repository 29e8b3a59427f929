import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CliDeps } from "../../src/cli/cli-deps.ts";
import type { CliIo } from "../../src/cli/cli-io.ts";
import { runCli } from "../../src/cli/main.ts";

/** What one in-process `svc` run printed and returned. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `svc` in process with the given dependencies, capturing its output. */
export async function svcWith(deps: Partial<CliDeps>, argv: string[], io: Partial<CliIo> = {}): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    argv,
    {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      color: false,
      ...io,
    },
    deps,
  );
  return { code, stdout, stderr };
}

/** Writes in-memory files into a new temporary directory and returns it with its cleanup. */
export function writePackage(files: Record<string, string | Uint8Array>): { dir: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), "svc-pkg-"));
  const dir = join(root, "pkg");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}
