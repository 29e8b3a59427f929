import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBwrapBackend } from "../../src/sandbox/bwrap-backend.ts";
import { bwrapRuns } from "../../src/sandbox/detect-sandbox.ts";
import { scriptJob } from "./job-fixtures.ts";
import { describeSandbox } from "./sandbox-suite.ts";

describeSandbox("bwrap", async () =>
  bwrapRuns()
    ? { backend: createBwrapBackend(), binding: { backend: "bwrap", local_image: "/usr/bin/python3" } }
    : "bwrap does not run here (apt-get install bubblewrap)",
);

describe("bwrap disk pool", () => {
  it.runIf(bwrapRuns())(
    "evil/leaked-disks: unmounts and removes every run disk it prepared, warm or used, when closed",
    async () => {
      // Enter, never list: the sandbox uid passes through to its run's disk (as in the service).
      const tempDir = mkdtempSync(join(tmpdir(), "svc-disk-pool-test-"));
      chmodSync(tempDir, 0o711);
      const backend = createBwrapBackend({ tempDir, diskPoolSize: 2 });
      try {
        const binding = { backend: "bwrap" as const, local_image: "/usr/bin/python3" };
        const ok = `import json\nopen("/output/result.json", "w").write(json.dumps({"result": "verified"}))\n`;
        for (let i = 0; i < 3; i++)
          expect((await backend.run(scriptJob(ok), binding)).result).toBe("verified");
        await backend.close?.();
        expect(readdirSync(tempDir)).toEqual([]);
        expect(readFileSync("/proc/self/mounts", "utf8")).not.toContain(tempDir);
      } finally {
        await backend.close?.();
        rmSync(tempDir, { recursive: true, force: true });
      }
    },
  );
});
