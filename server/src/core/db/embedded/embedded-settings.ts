import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * What an initialised data directory remembers about its embedded PostgreSQL, in
 * `<data dir>/embedded-postgres.json` (mode 0600: it holds the password). The file is written
 * last when a data directory is initialised, so its presence means the cluster is complete.
 */
export interface EmbeddedSettings {
  /** The port the server listened on last; reused while it is free, so URLs stay stable. */
  port: number;
  user: string;
  password: string;
  database: string;
}

const FILE = "embedded-postgres.json";

/** The settings, or null when the data directory was never fully initialised. */
export async function readEmbeddedSettings(dataDir: string): Promise<EmbeddedSettings | null> {
  try {
    return JSON.parse(await readFile(join(dataDir, FILE), "utf8")) as EmbeddedSettings;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Replaces the settings atomically (write then rename), readable by the owner only. */
export async function writeEmbeddedSettings(dataDir: string, settings: EmbeddedSettings): Promise<void> {
  const path = join(dataDir, FILE);
  await writeFile(`${path}.tmp`, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}
