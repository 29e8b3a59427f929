/**
 * The worst-case validations of bench/hostile: packages at the ceilings (a statement of 256 KiB
 * of distinct words, 4,990 files, an incompressible data file of BENCH_DATA_MB, default 32) sent
 * through the real upload flow, then validated all at once.
 */
import { randomBytes } from "node:crypto";
import { memoryTree, openServiceClient, sha256, zipTree } from "@svc/app";
import { Ceilings } from "@svc/schemas";

const DATA_MB = Number(process.env.BENCH_DATA_MB ?? 32);

/** `bytes` of distinct eight-letter words: as many lexemes as a statement can hold. */
function distinctWords(bytes: number): string {
  const words: string[] = [];
  for (let i = 0; words.length * 9 < bytes; i++) {
    let word = "";
    for (let n = i, k = 0; k < 8; k++, n = Math.floor(n / 26)) word += String.fromCharCode(97 + (n % 26));
    words.push(word);
  }
  return words.join(" ").slice(0, bytes);
}

/** One worst-case package, zipped as `svc upload` zips it; each has its own slug. */
export async function worstCaseArchive(index: number): Promise<Buffer> {
  const files: Record<string, string | Uint8Array> = {
    "problem.json": JSON.stringify({
      slug: `hostile-${index}`,
      title: "Hostile",
      summary: "At every ceiling.",
    }),
    "statement.md": distinctWords(Ceilings.statement_bytes),
    "data.bin": randomBytes(DATA_MB * 1024 * 1024),
  };
  for (let i = 0; i < 4990; i++) files[`files/f${i}.txt`] = randomBytes(512).toString("hex");
  return await zipTree(memoryTree(files));
}

export interface ValidationFigures {
  /** Wall time of each validate_authoring_upload call, ms. */
  durations: number[];
  /** How many were refused with `busy`. */
  busy: number;
  /** How many came back valid. */
  valid: number;
  archiveBytes: number;
}

/** Uploads `count` worst-case packages, then returns a function running their validations concurrently. */
export async function prepareValidations(
  server: string,
  token: string,
  count: number,
): Promise<{ archiveBytes: number; run: () => Promise<ValidationFigures> }> {
  const clients = Array.from({ length: count }, () => openServiceClient({ server, token }));
  const uploads: string[] = [];
  let archiveBytes = 0;
  for (const [index, client] of clients.entries()) {
    const archive = await worstCaseArchive(index);
    archiveBytes = archive.byteLength;
    const requested = await client.callTool("request_authoring_upload", {
      size_bytes: archive.byteLength,
      content_hash: sha256(archive),
    });
    await client.putUpload(String(requested.upload_url), archive);
    uploads.push(String(requested.upload_id));
  }
  const run = async (): Promise<ValidationFigures> => {
    const figures: ValidationFigures = { durations: [], busy: 0, valid: 0, archiveBytes };
    await Promise.all(
      clients.map(async (client, index) => {
        const start = performance.now();
        try {
          const result = await client.callTool("validate_authoring_upload", { upload_id: uploads[index] });
          if (result.valid === true) figures.valid++;
          else
            throw new Error(`worst case ${index} is invalid: ${JSON.stringify(result.errors).slice(0, 500)}`);
        } catch (error) {
          if ((error as { code?: string }).code !== "busy") throw error;
          figures.busy++;
        }
        figures.durations.push(performance.now() - start);
      }),
    );
    await Promise.all(clients.map((client) => client.close()));
    return figures;
  };
  return { archiveBytes, run };
}
