import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("../../src/sandbox/exit-cleanups.ts", import.meta.url));

interface Ended {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Runs `body` in a fresh Node process with `onProcessExit` imported. With `signal`, the child is
 * sent it once it has printed "ready" (and keeps itself alive until then).
 */
function runChild(body: string, signal?: NodeJS.Signals): Promise<Ended> {
  const script = `import { onProcessExit } from ${JSON.stringify(MODULE)};\n${body}`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script]);
  let stdout = "";
  let stderr = "";
  let sent = false;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (signal && !sent && stdout.includes("ready\n")) {
      sent = true;
      child.kill(signal);
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    child.on("close", (code, ended) => resolve({ stdout, stderr, code, signal: ended }));
  });
}

describe("onProcessExit", () => {
  it("runs every registered cleanup once at exit, not the forgotten ones, with no listener warning", async () => {
    const ended = await runChild(`
      const forget = [];
      for (let i = 0; i < 25; i++) forget.push(onProcessExit(() => process.stdout.write("ran " + i + "\\n")));
      forget[3]();
      forget[17]();
    `);
    expect(ended.code).toBe(0);
    const ran = ended.stdout
      .trim()
      .split("\n")
      .map((line) => Number(line.replace("ran ", "")));
    expect(ran).toEqual([...Array(25).keys()].filter((i) => i !== 3 && i !== 17));
    // Twenty-five pools in one process are not twenty-five exit listeners past Node's limit.
    expect(ended.stderr).not.toContain("MaxListenersExceededWarning");
  });

  it("keeps running the other cleanups when one throws", async () => {
    const ended = await runChild(`
      onProcessExit(() => { throw new Error("a pool's cleanup failed"); });
      onProcessExit(() => process.stdout.write("second ran\\n"));
    `);
    expect(ended.code).toBe(0);
    expect(ended.stdout).toBe("second ran\n");
  });

  it("runs them on a fatal signal (Ctrl-C, SIGTERM), then ends the process by that signal", async () => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      const ended = await runChild(
        `onProcessExit(() => process.stdout.write("cleaned\\n"));
        setInterval(() => {}, 1000);
        console.log("ready");`,
        signal,
      );
      expect(ended.stdout).toBe("ready\ncleaned\n");
      expect(ended.signal).toBe(signal);
    }
  });

  it("leaves a signal the process handles itself to its own handler, and runs at the exit that follows", async () => {
    const ended = await runChild(
      `onProcessExit(() => process.stdout.write("cleaned\\n"));
      process.on("SIGTERM", () => { process.stdout.write("shutting down\\n"); setTimeout(() => process.exit(0), 50); });
      setInterval(() => {}, 1000);
      console.log("ready");`,
      "SIGTERM",
    );
    expect(ended.stdout).toBe("ready\nshutting down\ncleaned\n");
    expect(ended.code).toBe(0);
  });

  it("leaves the signal to a once listener registered before it, as svc-server worker listens", async () => {
    // signal-exit counts the process's listeners when the signal arrives; a once listener has
    // removed itself by then when it runs first, and the process was killed mid-shutdown.
    const ended = await runChild(
      `process.once("SIGTERM", () => {
        process.stdout.write("shutting down\\n");
        setTimeout(() => { process.stdout.write("jobs finished\\n"); process.exit(0); }, 50);
      });
      onProcessExit(() => process.stdout.write("cleaned\\n"));
      setInterval(() => {}, 1000);
      console.log("ready");`,
      "SIGTERM",
    );
    expect(ended.stdout).toBe("ready\nshutting down\njobs finished\ncleaned\n");
    expect(ended.code).toBe(0);
  });

  it("hooks nothing once every cleanup is forgotten, so the process's signals are its own again", async () => {
    const ended = await runChild(`
      const forget = onProcessExit(() => process.stdout.write("cleaned\\n"));
      console.log("hooked " + process.listenerCount("SIGTERM"));
      forget();
      console.log("unhooked " + process.listenerCount("SIGTERM"));
    `);
    expect(ended.stdout).toBe("hooked 1\nunhooked 0\n");
    expect(ended.code).toBe(0);
  });
});
