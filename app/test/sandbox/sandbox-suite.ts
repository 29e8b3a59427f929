import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RuntimeBinding, SandboxBackend } from "../../src/sandbox/checker-job.ts";
import { evidenceDigest } from "../../src/sandbox/evidence-digest.ts";
import { scriptJob } from "./job-fixtures.ts";

/**
 * The behaviour every isolating backend owes (bwrap and docker run it): good checkers give their
 * verdicts, and hostile checkers are contained, reported inconclusive with the limit named where a
 * limit ended them, and leave the host untouched. A machine without the engine skips the suite,
 * except in CI (CI=true), where a missing engine fails it.
 */
export function describeSandbox(
  name: string,
  setup: () => Promise<{ backend: SandboxBackend; binding: RuntimeBinding } | string>,
): void {
  describe(`${name} sandbox`, async () => {
    const ready = await setup();
    if (typeof ready === "string") {
      if (process.env.CI === "true") throw new Error(`${name} is required in CI but unavailable: ${ready}`);
      it.skip(`needs ${name}: ${ready}`, () => {});
      return;
    }
    const { backend, binding } = ready;
    afterAll(async () => await backend.close?.());
    const run = (...args: Parameters<typeof scriptJob>) => backend.run(scriptJob(...args), binding);
    const verdict = (result: string, extra = "") =>
      `import json\n${extra}\nopen("/output/result.json", "w").write(json.dumps({"result": "${result}", "summary": "said ${result}"}))\n`;

    it("1. gives a good checker's verdicts, reading the manifest and the artifact", async () => {
      const source = `import json, pathlib
m = json.loads(pathlib.Path("/input/manifest.json").read_text())
a = next(x for x in m["artifacts"] if x["role"] == "answer")
value = int(pathlib.Path(a["path"]).read_text())
ok = value * value == 1522756 and m["limits"]["network"] == "none" and a["size_bytes"] == 5
pathlib.Path("/output/result.json").write_text(json.dumps({"result": "verified" if ok else "refuted", "summary": str(value)}))
pathlib.Path("/output/evidence/summary.json").write_text(json.dumps({"value": value}))
`;
      const good = await run(source);
      expect(good).toMatchObject({
        result: "verified",
        backend: backend.name,
        exit_code: 0,
        limit: null,
        summary: "1234",
      });
      expect(good.duration_ms).toBeGreaterThanOrEqual(0);
      expect(good.evidence_hash).toBe(evidenceDigest(good.evidence));
      expect(good.evidence.map((e) => e.path)).toEqual(["summary.json"]);
      const { input } = await import("./job-fixtures.ts");
      const bad = await run(source, { artifacts: [input("answer", "answer.txt", "1235\n")] });
      expect(bad.result).toBe("refuted");
    });

    it("2. keeps a score only on a verified score stage and checks evidence against the schema", async () => {
      const scored = await run(
        `import json\nopen("/output/result.json","w").write(json.dumps({"result":"verified","score":0.75}))\nopen("/output/evidence/summary.json","w").write('{"n": 1}')`,
        { result_kind: "score", evidence_schema: { type: "object", required: ["n"] } },
      );
      expect(scored).toMatchObject({ result: "verified", score: 0.75 });
      const unscored = await run(verdict("verified"), { result_kind: "score" });
      expect(unscored.result).toBe("inconclusive");
      expect(unscored.reason).toContain("score");
      const badEvidence = await run(
        verdict("verified", 'open("/output/evidence/summary.json","w").write("{}")'),
        {
          evidence_schema: { type: "object", required: ["n"] },
        },
      );
      expect(badEvidence.result).toBe("inconclusive");
      expect(badEvidence.reason).toContain("evidence_schema");
    });

    it("3. calls a missing or malformed result.json inconclusive with the reason", async () => {
      const missing = await run("print('no verdict')");
      expect(missing).toMatchObject({ result: "inconclusive", limit: null });
      expect(missing.reason).toContain("no /output/result.json");
      const malformed = await run(`open("/output/result.json","w").write('{"result": "error"}')`);
      expect(malformed.result).toBe("inconclusive");
      expect(malformed.reason).toContain("verified, refuted or inconclusive");
    });

    it("4. contains a fork bomb: inconclusive, processes limit", async () => {
      // Memory to spare, so the process limit is what stops it (64 interpreters can fill 128 MB,
      // and then the kernel's OOM killer would end the bomb first).
      const outcome = await run("import os\nwhile True:\n    os.fork()\n", { limits: { memory_mb: 1024 } });
      expect(outcome).toMatchObject({ result: "inconclusive", limit: "processes", exit_code: null });
    });

    it("5. contains a memory bomb: inconclusive, memory limit", async () => {
      const outcome = await run("x = []\nwhile True:\n    x.append(bytearray(8 * 1024 * 1024))\n");
      expect(outcome).toMatchObject({ result: "inconclusive", limit: "memory" });
    });

    it("6. ends a busy loop and a sleep at the wall clock: inconclusive, timeout", async () => {
      const [busy, sleepy] = [
        await run(verdict("refuted", "while True:\n    pass"), { limits: { timeout_seconds: 2 } }),
        await run(verdict("refuted", "import time\ntime.sleep(60)"), { limits: { timeout_seconds: 2 } }),
      ];
      for (const outcome of [busy, sleepy]) {
        expect(outcome).toMatchObject({ result: "inconclusive", limit: "timeout", exit_code: null });
        expect(outcome.duration_ms).toBeLessThan(10_000);
      }
    });

    it("7. stops a disk fill of /output: inconclusive, disk limit", async () => {
      const fill = `import os
for i in range(1000):
    with open(f"/output/evidence/fill{i}", "wb") as f:
        f.write(b"x" * 1024 * 1024)
`;
      const outcome = await run(verdict("refuted", fill), { limits: { disk_mb: 8 } });
      expect(outcome).toMatchObject({ result: "inconclusive", limit: "disk" });
    });

    it("8. has no network: a connection to a host listener fails inside and never arrives", async () => {
      let connections = 0;
      const server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
      const port = (server.address() as { port: number }).port;
      try {
        const source = `import json, socket
seen = []
for host in ["127.0.0.1", "172.17.0.1", "10.0.2.2"]:
    try:
        socket.create_connection((host, ${port}), timeout=1).close()
        seen.append(host + ": connected")
    except OSError as error:
        seen.append(host + ": " + type(error).__name__)
connected = any("connected" in s for s in seen)
open("/output/result.json", "w").write(json.dumps({"result": "refuted" if connected else "inconclusive", "summary": "; ".join(seen)}))
`;
        const outcome = await run(source);
        expect(outcome.result).toBe("inconclusive");
        expect(outcome.summary).not.toContain("connected");
        expect(connections).toBe(0);
      } finally {
        server.close();
      }
    });

    it("9. cannot write outside /output: the host file stays untouched", async () => {
      const hostFile = join(tmpdir(), `svc-host-file-${process.pid}-${name}`);
      writeFileSync(hostFile, "original");
      const source = `import json
failed = []
for path in ["${hostFile}", "/input/manifest.json", "/input/injected", "/usr/injected", "/etc/passwd"]:
    try:
        open(path, "w").write("overwritten")
    except OSError as error:
        failed.append(path)
open("/output/result.json", "w").write(json.dumps({"result": "verified", "summary": ",".join(failed)}))
`;
      const outcome = await run(source);
      expect(outcome.result).toBe("verified");
      for (const path of ["/input/manifest.json", "/input/injected", "/usr/injected"]) {
        expect(outcome.summary).toContain(path);
      }
      expect(readFileSync(hostFile, "utf8")).toBe("original");
    });

    it("10. keeps a symlink to a host file as a link: no host bytes in evidence, hashed as a link", async () => {
      const outcome = await run(
        verdict(
          "verified",
          'import os\nos.symlink("/etc/passwd", "/output/evidence/passwd")\nos.symlink("/etc/passwd", "/output/result.json.tmp")',
        ),
      );
      expect(outcome.result).toBe("verified");
      expect(outcome.evidence).toEqual([
        { path: "passwd", bytes: new Uint8Array(0), link_target: "/etc/passwd" },
      ]);
      expect(outcome.evidence_hash).toBe(
        evidenceDigest([{ path: "passwd", bytes: new Uint8Array(0), link_target: "/etc/passwd" }]),
      );
      const all = Buffer.concat(outcome.evidence.map((e) => Buffer.from(e.bytes))).toString();
      expect(all).not.toContain("root:");
    });

    it("11. truncates 100 MB of stdout at the log ceiling and still finishes the run", async () => {
      const flood = `import sys
chunk = "y" * 1048576
for _ in range(100):
    sys.stdout.write(chunk)
sys.stdout.flush()
`;
      const outcome = await run(verdict("verified", flood), { limits: { timeout_seconds: 20 } });
      expect(outcome.result).toBe("verified");
      expect(outcome.log.truncated).toBe(true);
      expect(outcome.log.bytes.length).toBeLessThanOrEqual(1_048_576);
    });

    it("12. evil/checker-text: NUL in summary, non-UTF-8 evidence names and link targets are data, escaped, never error", async () => {
      const outcome = await run(`import json, os
open("/output/result.json", "w").write(json.dumps({"result": "verified", "summary": "a\\u0000b"}))
open(b"/output/evidence/bad-\\xff-name", "wb").write(b"x")
os.symlink(b"/target-\\xfe", b"/output/evidence/link")
`);
      expect(outcome).toMatchObject({ result: "verified", summary: "a\\x00b" });
      const paths = outcome.evidence.map((e) => e.path).sort();
      expect(paths).toHaveLength(2);
      expect(paths).toContain("link");
      // Both backends read the names as bytes from the run's disk: the raw byte is kept, escaped.
      expect(paths).toEqual(["bad-\\xFF-name", "link"]);
      for (const entry of outcome.evidence) {
        for (const text of [entry.path, entry.link_target ?? ""]) {
          expect(text.isWellFormed() && !text.includes("\u0000"), JSON.stringify(text)).toBe(true);
        }
      }
      expect(outcome.evidence_hash).toBe(evidenceDigest(outcome.evidence));
      expect(outcome.evidence.find((e) => e.path === "link")?.link_target).toBe("/target-\\xFE");
    });

    it("16. streams evidence to the caller's store file by file when asked, with the same digest as held bytes", async () => {
      const source = verdict(
        "verified",
        `import os
os.makedirs("/output/evidence/deep", exist_ok=True)
open("/output/evidence/deep/big.bin", "wb").write(b"y" * (3 * 1024 * 1024))
open("/output/evidence/summary.json", "w").write("{}")
open("/output/evidence/empty", "wb").close()
os.symlink("deep/big.bin", "/output/evidence/link")
`,
      );
      const stored = new Map<string, number>();
      const keepEvidence = async (chunks: AsyncIterable<Uint8Array>) => {
        const hash = createHash("sha256");
        let size = 0;
        for await (const chunk of chunks) {
          hash.update(chunk);
          size += chunk.byteLength;
        }
        const content_hash = `sha256:${hash.digest("hex")}`;
        stored.set(content_hash, size);
        return { content_hash, size_bytes: size };
      };
      const kept = await backend.run(scriptJob(source), binding, { keepEvidence });
      const held = await run(source);
      expect(kept.result).toBe("verified");
      expect(kept.evidence_hash).toBe(held.evidence_hash);
      const big = kept.evidence.find((e) => e.path === "deep/big.bin")!;
      expect(big).toMatchObject({ size_bytes: 3 * 1024 * 1024, bytes: new Uint8Array(0) });
      expect(stored.get(big.content_hash!)).toBe(3 * 1024 * 1024);
      expect(kept.evidence.find((e) => e.path === "empty")).toMatchObject({ size_bytes: 0 });
      // summary.json is read to settle the outcome, so it is held; a link has no bytes to keep.
      expect(kept.evidence.find((e) => e.path === "summary.json")?.content_hash).toBeUndefined();
      expect(kept.evidence.find((e) => e.path === "link")).toMatchObject({ link_target: "deep/big.bin" });
    });

    const fillTmp = `for i in range(1000):
    with open(f"/tmp/fill{i}", "wb") as f:
        f.write(b"x" * 1024 * 1024)
`;

    it("13. evil/scratch-fill: /tmp is on the run's disk too: filling it is the disk limit, not host memory", async () => {
      const outcome = await run(verdict("refuted", fillTmp), { limits: { disk_mb: 8 } });
      expect(outcome).toMatchObject({ result: "inconclusive", limit: "disk" });
    });

    it("14. evil/disk-fill-unmounted: without a mountable disk, the watchdog stops a fill at the limit", async () => {
      process.env.SVC_SANDBOX_LOOP_DISK = "0";
      try {
        const outcome = await run(verdict("refuted", fillTmp.replace(/1000/, "200")), {
          limits: { disk_mb: 8, timeout_seconds: 20 },
        });
        expect(outcome).toMatchObject({ result: "inconclusive", limit: "disk" });
        expect(outcome.summary).toContain("8 MB disk limit");
      } finally {
        delete process.env.SVC_SANDBOX_LOOP_DISK;
      }
    });

    it("15. evil/evidence-flood: more evidence than the service keeps of a run is inconclusive, output limit, with the verdict kept out", async () => {
      const flood = `for i in range(80):
    with open(f"/output/evidence/part{i:03}", "wb") as f:
        f.write(b"x" * 1024 * 1024)
`;
      const outcome = await run(verdict("verified", flood), {
        limits: { disk_mb: 200, timeout_seconds: 20 },
      });
      expect(outcome).toMatchObject({ result: "inconclusive", limit: "output" });
      expect(outcome.summary).toContain("64 MiB");
    });

    it("17. evil/leftovers: each run gets a fresh sandbox and disk: nothing a previous run left in /tmp or /output remains", async () => {
      const source = verdict(
        "verified",
        `import os
seen = sorted(os.listdir("/tmp")) + sorted(os.listdir("/output/evidence"))
open("/tmp/left-behind", "w").write("x")
open("/output/evidence/left-behind", "w").write("x")
open("/output/evidence/seen.txt", "w").write(",".join(seen))
`,
      );
      for (let i = 0; i < 3; i++) {
        const outcome = await run(source);
        expect(outcome.result).toBe("verified");
        const seen = outcome.evidence.find((e) => e.path === "seen.txt");
        expect(Buffer.from(seen!.bytes).toString()).toBe("");
      }
    });
  });
}
