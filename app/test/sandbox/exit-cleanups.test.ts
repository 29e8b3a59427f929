import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("../../src/sandbox/exit-cleanups.ts", import.meta.url));

/** Runs `body` in a fresh Node process with `onProcessExit` imported; returns its output. */
function runChild(body: string): { stdout: string; stderr: string; status: number | null } {
  const script = `import { onProcessExit } from ${JSON.stringify(MODULE)};\n${body}`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return { stdout: child.stdout, stderr: child.stderr, status: child.status };
}

describe("onProcessExit", () => {
  it("runs every registered cleanup once at exit, not the forgotten ones, under one exit listener", () => {
    const { stdout, stderr, status } = runChild(`
      const forget = [];
      for (let i = 0; i < 25; i++) forget.push(onProcessExit(() => process.stdout.write("ran " + i + "\\n")));
      forget[3]();
      forget[17]();
      console.log("listeners " + process.listenerCount("exit"));
    `);
    expect(status).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toBe("listeners 1");
    const ran = lines.slice(1).map((line) => Number(line.replace("ran ", "")));
    expect(ran).toEqual([...Array(25).keys()].filter((i) => i !== 3 && i !== 17));
    // Twenty-five pools are no longer eleven listeners past Node's limit.
    expect(stderr).not.toContain("MaxListenersExceededWarning");
  });

  it("keeps running the other cleanups when one throws, and leaves no listener once all are forgotten", () => {
    const { stdout, status } = runChild(`
      onProcessExit(() => { throw new Error("a pool's cleanup failed"); });
      onProcessExit(() => process.stdout.write("second ran\\n"));
      const forgetAll = [onProcessExit(() => {}), onProcessExit(() => {})];
      forgetAll.forEach((forget) => forget());
      console.log("listeners " + process.listenerCount("exit"));
    `);
    expect(status).toBe(0);
    expect(stdout).toBe("listeners 1\nsecond ran\n");
    const none = runChild(`
      const forget = [onProcessExit(() => {}), onProcessExit(() => {})];
      forget.forEach((f) => f());
      console.log("listeners " + process.listenerCount("exit"));
    `);
    expect(none.stdout).toBe("listeners 0\n");
  });
});
