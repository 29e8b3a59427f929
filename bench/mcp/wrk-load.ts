import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** Where the bench finds wrk (https://github.com/wg/wrk): `WRK`, else the Debian package's path. */
export const WRK = process.env.WRK ?? "/usr/bin/wrk";

/** Whether wrk is installed; without it the bench leaves the wrk pair out and says so. */
export const wrkInstalled = () => existsSync(WRK);

/** What one wrk run served: calls per second and the calls it made. */
export interface WrkRun {
  callsPerSecond: number;
  calls: number;
}

/**
 * Drives `url` with wrk (one thread, `connections` keep-alive connections, for `seconds`) running
 * one of the Lua scripts in ./wrk with `env`. wrk costs a few microseconds a call, so what limits
 * the rate is the server (and its database): the pair the bench's headline compares. A script
 * raises on any answer that is not a served call, and the run then fails.
 */
export async function wrkLoad(
  script: "get-problem-mcp" | "get-problem-path",
  url: string,
  env: Record<string, string>,
  options: { seconds: number; connections: number },
): Promise<WrkRun> {
  const lua = fileURLToPath(new URL(`./wrk/${script}.lua`, import.meta.url));
  const { stdout, stderr } = await promisify(execFile)(
    WRK,
    ["-t1", `-c${options.connections}`, `-d${options.seconds}s`, "-s", lua, url],
    { env: { ...process.env, ...env } },
  );
  const calls = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  const callsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  // A script error ends wrk with a failure (execFile throws); a non-2xx answer shows in its output.
  if (/Non-2xx/.test(stdout) || !(calls > 0)) {
    throw new Error(`wrk ${script} against ${url} failed:\n${stdout}\n${stderr}`);
  }
  return { callsPerSecond, calls };
}
