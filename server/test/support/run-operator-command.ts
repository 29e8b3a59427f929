import { runServerCli } from "../../src/edges/cli/main.ts";

/** What an in-process `svc-server` run printed and its exit code. */
export interface OperatorRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `svc-server <argv>` in process, as an operator runs it against `env` (DATABASE_URL at least),
 * with its output captured: cheaper than a child process for commands that need no server.
 */
export async function runOperatorCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<OperatorRun> {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
    color: false,
  };
  const code = await runServerCli(argv, { io, env: { LOG_LEVEL: "silent", ...env } });
  return { code, stdout, stderr };
}
