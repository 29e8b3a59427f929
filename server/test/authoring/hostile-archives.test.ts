import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256 } from "@svc/app";
import { expect, it } from "vitest";
import { rawZip } from "../../../app/test/tree/raw-zip.ts";
import { publishAuthoringUpload } from "../../src/authoring/publish-authoring-upload.ts";
import { validateAuthoringUpload } from "../../src/authoring/validate-authoring-upload.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { fixturePackage, newAuthor, recordCounts, uploadBytes } from "./support/authoring-harness.ts";

/** Every blob file under a local blob store's root. */
function storedBlobs(root: string): string[] {
  return readdirSync(join(root, "sha256"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describeWithDatabase("hostile archives are validation errors, never crashes", () => {
  const db = useTestDatabase();

  async function validateHostile(zip: Buffer) {
    const blobDir = mkdtempSync(join(tmpdir(), "svc-blobs-"));
    const services = testServices(db.sql, { blobDir });
    const author = await newAuthor(db.sql);
    const before = await recordCounts(db.sql);
    const uploadId = await uploadBytes(services, author, zip);
    const validation = await validateAuthoringUpload(services, author, { upload_id: uploadId });
    // Nothing but the archive itself is stored, and no record appears, even on a publish attempt.
    await expect(
      publishAuthoringUpload(services, author, {
        upload_id: uploadId,
        plan_hash: `sha256:${"0".repeat(64)}`,
      }),
    ).rejects.toMatchObject({ code: "upload_invalid" });
    expect(storedBlobs(blobDir)).toEqual([sha256(zip).slice("sha256:".length)]);
    expect(await recordCounts(db.sql)).toEqual(before);
    return validation;
  }

  it("refuses a zip bomb that unpacks past the 256 MiB ceiling", async () => {
    // 257 MiB of zeros deflate to about 256 KiB: a compression ratio near 1000.
    const bomb = rawZip([
      { name: "problem.json", data: fixturePackage("valid-script")["problem.json"] },
      { name: "statement.md", data: fixturePackage("valid-script")["statement.md"] },
      { name: "fixtures/zeros.bin", data: new Uint8Array(257 * 1024 * 1024), deflate: true },
    ]);
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    const validation = await validateHostile(bomb);
    expect(validation).toMatchObject({
      valid: false,
      state: "invalid",
      plan: null,
      plan_hash: null,
      reconciliation: null,
    });
    expect(validation.errors).toEqual([
      {
        file: "fixtures/zeros.bin",
        path: "",
        code: "unpacked_too_large",
        message: expect.stringContaining(String(256 * 1024 * 1024)),
      },
    ]);
  });

  it("refuses an entry that climbs out of the package (zip slip)", async () => {
    const files = fixturePackage("valid-script");
    const slip = rawZip([
      ...Object.entries(files).map(([name, data]) => ({ name, data })),
      { name: "../../etc/cron.d/evil", data: "* * * * * root true\n" },
    ]);
    const validation = await validateHostile(slip);
    expect(validation.valid).toBe(false);
    expect(validation.errors).toEqual([
      expect.objectContaining({ file: "../../etc/cron.d/evil", code: "unsafe_path" }),
    ]);
  });

  it("names an entry holding NUL or a bidirectional control in the error, escaped, never storing it raw", async () => {
    for (const name of ["fixtures/a\u0000b.txt", "fixtures/txt.\u202eexe"]) {
      const validation = await validateHostile(
        rawZip([
          { name: "problem.json", data: fixturePackage("valid-script")["problem.json"] },
          { name, data: "x\n" },
        ]),
      );
      expect(validation.valid).toBe(false);
      const [error] = validation.errors;
      expect(error).toMatchObject({ code: "unsafe_path", file: expect.stringMatching(/\\u(0000|202e)/) });
      // Shown escaped: the raw characters are neither stored (PostgreSQL refuses NUL) nor shown.
      for (const raw of ["\u0000", "\u202e"]) expect(`${error!.file} ${error!.message}`).not.toContain(raw);
    }
  });

  it("reports a text file holding NUL as a lint error at that file, as svc lint does", async () => {
    const files = fixturePackage("valid-script");
    const validation = await validateHostile(
      rawZip(
        [
          ...Object.entries(files).map(([name, data]) => ({ name, data })),
          { name: "statement.md", data: "# Title\n\u0000 hidden\n" },
        ].filter((entry, i, all) => all.findLastIndex((e) => e.name === entry.name) === i),
      ),
    );
    expect(validation.valid).toBe(false);
    expect(validation.errors).toContainEqual(
      expect.objectContaining({
        file: "statement.md",
        code: "schema_violation",
        message: expect.stringMatching(/NUL.*line 2/),
      }),
    );
  });

  it("reports bytes that are not a ZIP at all as invalid_archive", async () => {
    const validation = await validateHostile(Buffer.from("this is not a zip archive"));
    expect(validation.errors).toEqual([expect.objectContaining({ code: "invalid_archive" })]);
  });
});
