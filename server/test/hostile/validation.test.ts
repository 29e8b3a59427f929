import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { lintPackage, memoryTree, openDirectoryTree } from "@svc/app";
import { Ceilings } from "@svc/schemas";
import { afterAll, describe, expect, it } from "vitest";
import { svcWith } from "../../../app/test/cli/support-run.ts";
import { rawZip } from "../../../app/test/tree/raw-zip.ts";
import { validateAuthoringUpload } from "../../src/authoring/validate-authoring-upload.ts";
import { ValidationPool } from "../../src/authoring/validation-pool.ts";
import {
  type Files,
  newAuthor,
  publishFiles,
  uploadAndValidate,
  uploadBytes,
  zipFiles,
} from "../authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

/**
 * The hostile suite of validation (issue 14, item 1 and the ZIP twin): one named fixture per
 * attack, through the real validate_authoring_upload on a real database, the real pool and the
 * real CLI. The cases that already held (zip slip, bomb, symlink, 10,000 files) stay here so they
 * keep holding.
 */

const MiB = 1024 * 1024;

/** A package that lints clean with no checker to run: a problem and its statement. */
function smallPackage(statement = "# Add\n\nAdd two numbers.\n"): Files {
  return {
    "problem.json": JSON.stringify({
      slug: `evil-${Math.random().toString(36).slice(2, 10)}`,
      title: "Add",
      summary: "Add two numbers.",
    }),
    "statement.md": statement,
  };
}

/** `count` distinct words of eight letters, separated by spaces: no two lexemes alike. */
function distinctWords(bytes: number): string {
  const words: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    let word = "";
    for (let n = i, k = 0; k < 8; k++, n = Math.floor(n / 26)) word += String.fromCharCode(97 + (n % 26));
    words.push(word);
    length += 9;
  }
  return words.join(" ");
}

describeWithDatabase("evil/ validation fixtures", () => {
  const db = useTestDatabase();

  async function validateZip(zip: Buffer) {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const uploadId = await uploadBytes(services, author, zip);
    return await validateAuthoringUpload(services, author, { upload_id: uploadId });
  }

  it("evil/huge-statement: a 250 MiB statement.md in an 815 KB ZIP is refused at its ceiling, unread", async () => {
    const files = smallPackage();
    const zip = rawZip([
      { name: "problem.json", data: files["problem.json"] },
      { name: "statement.md", data: new Uint8Array(250 * MiB).fill(0x61), deflate: true },
    ]);
    expect(zip.byteLength).toBeLessThan(MiB);
    // A first validation starts the pool's thread, so its start-up is not counted below.
    await validateZip(await zipFiles(smallPackage()));
    const before = process.memoryUsage().rss;
    const validation = await validateZip(zip);
    // Inflating the statement whole would add 250 MiB or more; refusing it on its header adds nothing of the kind.
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MiB);
    expect(validation).toMatchObject({ valid: false, state: "invalid", plan: null, plan_hash: null });
    expect(validation.errors).toEqual([
      {
        file: "statement.md",
        path: "",
        code: "entry_too_large",
        message: expect.stringMatching(
          /statement\.md is at least 262144000 bytes; the ceiling for statement_md is 262144 bytes/,
        ),
      },
    ]);
  });

  it("evil/huge-statement-lying-header: a statement whose headers claim 10 bytes is stopped at the first chunk over", async () => {
    const files = smallPackage();
    const zip = rawZip([
      { name: "problem.json", data: files["problem.json"] },
      { name: "statement.md", data: new Uint8Array(250 * MiB).fill(0x61), deflate: true, declaredSize: 10 },
    ]);
    const validation = await validateZip(zip);
    expect(validation.errors).toEqual([
      expect.objectContaining({
        file: "statement.md",
        code: "entry_too_large",
        message: expect.stringContaining("the ceiling for statement_md is 262144 bytes (256 KiB)"),
      }),
    ]);
  });

  it("evil/distinct-words-statement: 3.6 MB of distinct words is refused by lint and cannot break the search document", async () => {
    const words = distinctWords(3.6e6);
    const validation = await uploadAndValidate(
      testServices(db.sql),
      await newAuthor(db.sql),
      smallPackage(words),
    );
    expect(validation.errors).toEqual([
      expect.objectContaining({ file: "statement.md", code: "entry_too_large" }),
    ]);
    // The search document is built from a bounded prefix, whatever reaches it.
    const [row] = await db.sql<{ lexemes: number }[]>`
      select length(svc_problem_search_document('t', 's', ${words})) as lexemes`;
    expect(row!.lexemes).toBeGreaterThan(1000);
  });

  it("evil/statement-at-ceiling: a statement of exactly 256 KiB of distinct words validates and publishes", async () => {
    const words = distinctWords(Ceilings.statement_bytes).slice(0, Ceilings.statement_bytes);
    const services = testServices(db.sql);
    const result = await publishFiles(services, await newAuthor(db.sql), smallPackage(words));
    expect(result.validation.valid).toBe(true);
    const [row] = await db.sql<{ found: boolean }[]>`
      select search_document @@ plainto_tsquery('english', 'aaaaaaaa') as found from problems where slug = ${result.validation.plan!.problems[0]!.slug}`;
    expect(row!.found).toBe(true);
  });

  it("evil/case-twin: a ZIP holding Statement.md and statement.md is refused naming both", async () => {
    const files = smallPackage();
    const validation = await validateZip(
      rawZip([
        { name: "problem.json", data: files["problem.json"] },
        { name: "Statement.md", data: "# Upper\n" },
        { name: "statement.md", data: "# Lower\n" },
      ]),
    );
    expect(validation.errors).toEqual([
      expect.objectContaining({
        file: "statement.md",
        code: "duplicate_entry",
        message: expect.stringMatching(/"statement\.md" and "Statement\.md" differ only by letter case/),
      }),
    ]);
  });

  it("evil/zip-slip: an entry climbing out of the package is refused", async () => {
    const files = smallPackage();
    const validation = await validateZip(
      rawZip([
        ...Object.entries(files).map(([name, data]) => ({ name, data })),
        { name: "../../etc/passwd", data: "x" },
      ]),
    );
    expect(validation.errors).toEqual([
      expect.objectContaining({ file: "../../etc/passwd", code: "unsafe_path" }),
    ]);
  });

  it("evil/zip-bomb: a data file unpacking past 256 MiB is refused", async () => {
    const files = smallPackage();
    const validation = await validateZip(
      rawZip([
        ...Object.entries(files).map(([name, data]) => ({ name, data })),
        { name: "fixtures/zeros.bin", data: new Uint8Array(257 * MiB), deflate: true },
      ]),
    );
    expect(validation.errors).toEqual([
      expect.objectContaining({ file: "fixtures/zeros.bin", code: "unpacked_too_large" }),
    ]);
  });

  it("evil/symlink: a symbolic link entry is refused", async () => {
    const files = smallPackage();
    const validation = await validateZip(
      rawZip([
        ...Object.entries(files).map(([name, data]) => ({ name, data })),
        { name: "fixtures/link", data: "/etc/shadow", mode: 0o120777 },
      ]),
    );
    expect(validation.errors).toEqual([expect.objectContaining({ file: "fixtures/link", code: "symlink" })]);
  });

  it("evil/10000-files: an archive of 10,000 files is refused before it is read", async () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => ({ name: `fixtures/f${i}.txt`, data: "" }));
    const validation = await validateZip(rawZip(entries));
    expect(validation.errors).toEqual([expect.objectContaining({ code: "too_many_files" })]);
  });
});

describe("evil/ fixtures outside the service", () => {
  const temps: string[] = [];
  afterAll(() => {
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });
  function writeDir(files: Record<string, string>): string {
    const dir = join(mkdtempSync(join(tmpdir(), "svc-evil-")), "pkg");
    temps.push(dirname(dir));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }

  it("evil/huge-statement-directory: svc lint refuses a statement over the ceiling naming file, field and ceiling", async () => {
    const dir = writeDir(smallPackage("a".repeat(Ceilings.statement_bytes + 1)) as Record<string, string>);
    const run = await svcWith({}, ["lint", dir, "--json"]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.errors).toEqual([
      {
        file: "statement.md",
        path: "",
        code: "schema_violation",
        message:
          "statement.md is 262145 bytes; the ceiling for statement_md is 262144 bytes (256 KiB), so shorten it or move bulk data into a reference file",
      },
    ]);
  });

  it("evil/markdown-field: a description_md over its ceiling is refused at its JSON pointer", async () => {
    const report = await lintPackage(
      memoryTree({
        "campaign.json": JSON.stringify({
          slug: "c",
          title: "C",
          summary: "S",
          description_md: "x".repeat(Ceilings.markdown_chars + 1),
        }),
        "problems/a/problem.json": JSON.stringify({ slug: "a", title: "A", summary: "S" }),
        "problems/a/statement.md": "# A\n",
      }),
    );
    expect(report.errors).toEqual([
      expect.objectContaining({
        file: "campaign.json",
        path: "/description_md",
        code: "schema_violation",
        message: expect.stringContaining(`at most ${Ceilings.markdown_chars} characters`),
      }),
    ]);
  });

  it("evil/case-twin-directory: a directory holding Statement.md and statement.md is refused naming both", async () => {
    const dir = writeDir({ ...(smallPackage() as Record<string, string>), "Statement.md": "# Upper\n" });
    await expect(openDirectoryTree(dir)).rejects.toMatchObject({
      code: "duplicate_entry",
      message: expect.stringMatching(/differ only by letter case/),
    });
  });

  it("evil/validation-queue-full: a burst past the pool's threads and queue is refused with busy, the rest validate", async () => {
    const pool = new ValidationPool({ threads: 1, queue: 1 });
    try {
      const zip = await zipFiles(smallPackage());
      const outcomes = await Promise.allSettled(
        Array.from({ length: 5 }, () => pool.validate(zip, new Date(0))),
      );
      const refused = outcomes.filter((outcome) => outcome.status === "rejected");
      expect(refused.length).toBeGreaterThanOrEqual(3);
      for (const outcome of refused) {
        expect(outcome.reason).toMatchObject({ code: "busy", details: { retry_after_s: 5 } });
      }
      for (const outcome of outcomes) {
        if (outcome.status === "fulfilled") expect(outcome.value).toMatchObject({ kind: "linted" });
      }
      // Once the burst is over the pool takes work again.
      expect(await pool.validate(zip, new Date(0))).toMatchObject({ kind: "linted" });
    } finally {
      await pool.close();
    }
  });

  it("a warmed pool (an upload was requested) takes no place of the queue: the validation that follows runs on the warmed thread", async () => {
    const pool = new ValidationPool({ threads: 1, queue: 0 });
    try {
      const zip = await zipFiles(smallPackage());
      pool.warm();
      pool.warm(); // a second request while the thread starts starts no other
      expect(pool.stats()).toMatchObject({ running: 0, waiting: 0 });
      const first = await pool.validate(zip, new Date(0));
      expect(first).toMatchObject({ kind: "linted" });
      pool.warm(); // a thread is running: nothing to do
      const second = await pool.validate(zip, new Date(0));
      expect(second.thread).toBe(first.thread);
    } finally {
      await pool.close();
    }
  });

  it("evil/worst-case-on-the-pool: 4000 files and the largest statement lint on a pool thread, with the inline plan_hash", async () => {
    const files: Files = smallPackage(
      distinctWords(Ceilings.statement_bytes).slice(0, Ceilings.statement_bytes),
    );
    for (let i = 0; i < 4000; i++) files[`context-${i}.bin`] = `unknown file ${i}\n`;
    const pool = new ValidationPool({ threads: 1, queue: 0 });
    try {
      const now = new Date("2026-11-23T00:00:00Z");
      const pooled = await pool.validate(await zipFiles(files), now);
      const inline = await lintPackage(memoryTree(files), { now });
      expect(pooled.thread).not.toBe(0);
      if (pooled.kind !== "linted") throw new Error(`refused: ${pooled.error.message}`);
      expect(inline.plan_hash).not.toBeNull();
      expect(pooled.report.plan_hash).toBe(inline.plan_hash);
      expect(pooled.report.notes).toEqual(inline.notes);
      expect(pooled.tree.paths()).toEqual(memoryTree(files).paths());
    } finally {
      await pool.close();
    }
  });
});
