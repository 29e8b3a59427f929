import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ArchiveLimits, openZipTree, SERVER_ARCHIVE_LIMITS, TreeError } from "../../src/tree/index.ts";
import { type RawEntry, rawZip } from "./raw-zip.ts";

const MiB = 1024 * 1024;
/** Small ceilings so that bombs stay cheap to build. */
const SMALL: ArchiveLimits = { maxFiles: 10, maxZippedBytes: MiB, maxUnpackedBytes: MiB };

/** Expects the archive to be refused with `code`, naming `entry` in the error and its message. */
async function expectRefusal(zip: Uint8Array, code: string, entry?: string, limits?: ArchiveLimits) {
  const error = await openZipTree(zip, limits).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TreeError);
  expect(error).toMatchObject({ code, entry });
  if (entry !== undefined) expect((error as TreeError).message).toContain(`"${entry}"`);
}

describe("openZipTree", () => {
  it("lists files in byte order, skipping folders, .svc/ and __MACOSX/", async () => {
    const zip = rawZip([
      { name: "b.md", data: "b" },
      { name: "a/", mode: 0o40755 },
      { name: "a/z.json", data: "{}", deflate: true },
      { name: ".svc/upload.json", data: "{}" },
      { name: "__MACOSX/._b.md", data: "junk" },
      { name: "a/.git/HEAD", data: "ref" },
    ]);
    const tree = await openZipTree(zip);
    expect(tree.paths()).toEqual(["a/z.json", "b.md"]);
    expect(tree.size("a/z.json")).toBe(2);
    expect(new TextDecoder().decode(await tree.read("a/z.json"))).toBe("{}");
  });

  it("reads an archive from a file path", async () => {
    const file = join(tmpdir(), `svc-tree-${process.pid}.zip`);
    await writeFile(file, rawZip([{ name: "problem.json", data: "{}" }]));
    expect((await openZipTree(file)).paths()).toEqual(["problem.json"]);
  });

  it("refuses a missing archive file with not_found", async () => {
    await expect(openZipTree(join(tmpdir(), "no-such-archive.zip"))).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("rejects reads of paths it does not list with not_found", async () => {
    const tree = await openZipTree(rawZip([{ name: ".svc/state.json", data: "{}" }]));
    await expect(tree.read(".svc/state.json")).rejects.toMatchObject({ code: "not_found" });
  });

  describe("refuses hostile archives", () => {
    it.each([
      ["../evil.txt", "escapes the package root"],
      ["a/../../b", "escapes the package root"],
      ["/etc/passwd", "absolute path"],
      ["C:\\x", "absolute path"],
      ["a\\b.txt", "backslash"],
      ["a//b.txt", "empty segment"],
      ["./a.txt", '"." segment'],
      ["../", "escapes the package root"],
    ])("zip slip %j is unsafe_path (%s)", async (name, reason) => {
      const zip = rawZip([
        { name: "ok.md", data: "ok" },
        { name, data: "pwned" },
      ]);
      await expectRefusal(zip, "unsafe_path", name);
      await expect(openZipTree(zip)).rejects.toThrow(reason);
    });

    it("a symlink entry is refused with symlink", async () => {
      const zip = rawZip([{ name: "link", data: "/etc/passwd", mode: 0o120777 }]);
      await expectRefusal(zip, "symlink", "link");
    });

    it.each([
      ["the same name twice", "a.txt", "a.txt"],
      ["names equal after NFC normalisation", "caf\u00e9.md", "cafe\u0301.md"],
      ["a file that is also a folder", "a", "a/b.txt"],
    ])("%s is duplicate_entry", async (_, first, second) => {
      const zip = rawZip([
        { name: first, data: "1" },
        { name: second, data: "2" },
      ]);
      await expectRefusal(zip, "duplicate_entry", second);
    });

    it("an entry flagged as encrypted is encrypted_entry", async () => {
      const zip = rawZip([{ name: "secret.json", data: "sealed-bytes{}", flags: 0x1 }]);
      await expectRefusal(zip, "encrypted_entry", "secret.json");
    });

    it("5001 files are too_many_files at the 5001st entry", async () => {
      const entries: RawEntry[] = Array.from({ length: 5001 }, (_, i) => ({ name: `f/${i}.txt`, data: "x" }));
      await expectRefusal(rawZip(entries), "too_many_files", "f/5000.txt", SERVER_ARCHIVE_LIMITS);
    });

    it("a central directory listing far more entries than files allowed is refused before reading", async () => {
      const entries: RawEntry[] = Array.from({ length: 21 }, (_, i) => ({ name: `${i}.txt` }));
      await expect(openZipTree(rawZip(entries), SMALL)).rejects.toMatchObject({
        code: "too_many_files",
        message: expect.stringContaining("lists 21 entries"),
      });
    });

    it("a highly compressible 2 MiB entry is unpacked_too_large under a 1 MiB ceiling", async () => {
      const zip = rawZip([{ name: "bomb.bin", data: new Uint8Array(2 * MiB), deflate: true }]);
      expect(zip.length).toBeLessThan(10_000);
      await expectRefusal(zip, "unpacked_too_large", "bomb.bin", SMALL);
    });

    it("a bomb whose headers declare 10 bytes is still stopped by counting real bytes", async () => {
      const zip = rawZip([
        { name: "liar.bin", data: new Uint8Array(2 * MiB), deflate: true, declaredSize: 10 },
      ]);
      await expectRefusal(zip, "unpacked_too_large", "liar.bin", SMALL);
    });

    it("entries each under the ceiling are refused once their running total passes it", async () => {
      const third = new Uint8Array(MiB / 2);
      const zip = rawZip(["1.bin", "2.bin", "3.bin"].map((name) => ({ name, data: third, deflate: true })));
      await expectRefusal(zip, "unpacked_too_large", "3.bin", SMALL);
    });

    it("a small entry whose headers lie about its size is invalid_archive", async () => {
      const zip = rawZip([{ name: "liar.txt", data: "x".repeat(100), deflate: true, declaredSize: 10 }]);
      await expectRefusal(zip, "invalid_archive", "liar.txt");
      await expect(openZipTree(zip)).rejects.toThrow("declares 10 bytes but holds 100");
    });

    it("an archive above the zipped ceiling is archive_too_large before it is read", async () => {
      const zip = rawZip([{ name: "big.bin", data: new Uint8Array(2000) }]);
      await expect(openZipTree(zip, { ...SMALL, maxZippedBytes: 1000 })).rejects.toMatchObject({
        code: "archive_too_large",
      });
    });

    it("garbage bytes are invalid_archive with yauzl's reason", async () => {
      const garbage = new TextEncoder().encode("this is not a zip file at all, just some text ".repeat(10));
      await expect(openZipTree(garbage)).rejects.toMatchObject({
        code: "invalid_archive",
        message: expect.stringContaining("not a zip file, or file is truncated"),
      });
    });

    it("an entry whose deflate stream is corrupt is invalid_archive naming it", async () => {
      const zip = rawZip([{ name: "broken.json", data: "{}".repeat(100), deflate: true }]);
      zip.fill(0xff, 30 + "broken.json".length, 30 + "broken.json".length + 4);
      await expectRefusal(zip, "invalid_archive", "broken.json");
    });

    it("an entry whose bytes do not match its CRC-32 is invalid_archive", async () => {
      const zip = rawZip([{ name: "flipped.txt", data: "abc" }]);
      zip[30 + "flipped.txt".length] = "x".charCodeAt(0);
      await expectRefusal(zip, "invalid_archive", "flipped.txt");
    });

    it("a truncated archive is invalid_archive", async () => {
      const zip = rawZip([{ name: "a.txt", data: "a".repeat(500), deflate: true }]);
      await expect(openZipTree(zip.subarray(0, zip.length - 30))).rejects.toMatchObject({
        code: "invalid_archive",
      });
    });
  });
});
