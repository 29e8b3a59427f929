import { buffer } from "node:stream/consumers";
import { pack } from "tar-stream";
import { describe, expect, it } from "vitest";
import { readTar } from "../../src/sandbox/read-tar.ts";
import { tarDirectory } from "../../src/sandbox/write-tar.ts";

/** An archive laid out as Docker's getArchive of /output lays it out: every name under `output/`. */
async function outputArchive(): Promise<Buffer> {
  const archive = pack();
  const longName = `output/evidence/${"deep/".repeat(30)}file.txt`;
  archive.entry({ name: "output", type: "directory" });
  archive.entry({ name: "output/result.json" }, '{"result":"verified"}');
  archive.entry({ name: longName }, "long");
  archive.entry({ name: "output/evidence/link", type: "symlink", linkname: "/etc/passwd" });
  archive.entry({ name: "output/fifo", type: "fifo" });
  archive.finalize();
  return buffer(archive);
}

describe("readTar", () => {
  it("reads files and symlinks, strips the leading folder, keeps long names and skips the rest", async () => {
    const entries = await readTar(await outputArchive(), 1);
    expect(entries.map((e) => ({ ...e, bytes: Buffer.from(e.bytes).toString() }))).toEqual([
      { path: "result.json", bytes: '{"result":"verified"}' },
      { path: `evidence/${"deep/".repeat(30)}file.txt`, bytes: "long" },
      { path: "evidence/link", bytes: "", link_target: "/etc/passwd" },
    ]);
  });

  it("refuses bytes that are not a tar archive", async () => {
    await expect(readTar(new TextEncoder().encode("not a tar archive at all"))).rejects.toThrow();
  });

  it("writes a directory entry that reads back as nothing but a directory", async () => {
    const archive = await tarDirectory("evidence", 0o777, 65534);
    expect(await readTar(archive)).toEqual([]);
  });
});
