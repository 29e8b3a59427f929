import { spawn } from "node:child_process";
import type { OsUser } from "./postgres-os-user.ts";

/**
 * Runs a PostgreSQL program (initdb, pg_ctl) as `owner` and resolves with its output, or rejects
 * with the output in the message. Messages are forced to English so failures read the same
 * everywhere.
 */
export function runTool(program: string, args: readonly string[], owner: OsUser | null): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      ...(owner ?? {}),
      env: { ...process.env, LC_ALL: "C", LC_MESSAGES: "C" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) resolve(output);
      else {
        const name = program.split("/").pop();
        reject(new Error(`${name} ${args[0] ?? ""} failed (${signal ?? `exit ${code}`}): ${output.trim()}`));
      }
    });
  });
}
