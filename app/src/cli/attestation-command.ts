import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { IdPrefix, idPattern } from "@svc/schemas";
import {
  type AttestationBundle,
  type Check,
  checkAttestation,
  type KeysDocument,
} from "../attestation/check-attestation.ts";
import { credentialsPath, resolveCredential } from "../client/credentials.ts";
import { sha256 } from "../hash/sha256.ts";
import type { CliDeps } from "./cli-deps.ts";
import { type CliIo, UsageError } from "./cli-io.ts";

export interface AttestationVerifyOptions {
  /** Local files to match against the attestation's subjects. */
  artifact?: string[];
  server?: string;
  json?: boolean;
}

/** Checkpoints this machine saw, per log origin: `$XDG_CONFIG_HOME/svc/transparency-log.json`. */
export function seenCheckpointsPath(env: CliDeps["env"]): string {
  return join(dirname(credentialsPath(env)), "transparency-log.json");
}

/** Attestation documents are small; anything larger is not one. */
const MAX_BUNDLE_BYTES = 16 * 1024 * 1024;

/**
 * `svc attestation verify <file|run-id>`: checks a run's attestations without trusting the service
 * (docs/attestations.md): the signatures against the published keys, the local files given with
 * --artifact against the subjects, each inclusion proof against its signed checkpoint, and that
 * checkpoint's consistency with the log's newest and with the last checkpoint this machine saw,
 * which it then remembers. A run id reads the attestations from the service with the stored
 * credential; a file is what `GET /api/verifications/{id}/attestations` returned. Exit 0 when
 * every check holds, 1 naming the first that does not, 2 for bad usage.
 */
export async function attestationVerifyCommand(
  target: string,
  options: AttestationVerifyOptions,
  io: CliIo,
  deps: CliDeps,
): Promise<number> {
  const { server, token } = await resolveCredential(options, deps.env);
  const getJson = async (path: string, auth = false): Promise<unknown> => {
    const response = await fetch(`${server}${path}`, {
      headers: { accept: "application/json", ...(auth && token ? { authorization: `Bearer ${token}` } : {}) },
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json().catch(() => null)) as {
      error?: { code: string; message: string };
    } | null;
    if (!response.ok) {
      const why = body?.error ? `[${body.error.code}] ${body.error.message}` : `HTTP ${response.status}`;
      throw new UsageError(`${path}: ${why}`);
    }
    return body;
  };

  let bundle: AttestationBundle;
  if (idPattern(IdPrefix.verificationRun).test(target)) {
    bundle = (await getJson(`/api/verifications/${target}/attestations`, true)) as AttestationBundle;
  } else {
    const text = await readFile(target, "utf8").catch(() => {
      throw new UsageError(`${target} is neither a run id (vrn_...) nor a readable file`);
    });
    if (text.length > MAX_BUNDLE_BYTES)
      throw new UsageError(`${target} is larger than an attestation document`);
    try {
      bundle = JSON.parse(text) as AttestationBundle;
    } catch {
      throw new UsageError(
        `${target} is not JSON: save what GET /api/verifications/{id}/attestations returns`,
      );
    }
    if (!Array.isArray(bundle?.attestations)) {
      throw new UsageError(
        `${target} has no "attestations" list: save what GET /api/verifications/{id}/attestations returns`,
      );
    }
  }

  const keys = (await getJson("/.well-known/svc-attestation-keys")) as KeysDocument;
  const seenFile = seenCheckpointsPath(deps.env);
  const seenAll = JSON.parse(await readFile(seenFile, "utf8").catch(() => "{}")) as Record<
    string,
    { tree_size: number; root_hash: string }
  >;
  const seen = seenAll[keys.log_origin] ?? null;

  const localFiles = await Promise.all(
    (options.artifact ?? []).map(async (path) => ({ path, sha256: sha256(await readFile(path)) })),
  );

  let latest: Parameters<typeof checkAttestation>[3]["latest"] = null;
  try {
    const newest = (await getJson("/api/transparency-log")) as {
      checkpoint: { note: string; tree_size: number };
    };
    const proofFrom = async (size: number | undefined): Promise<string[] | null> => {
      if (size === undefined || size < 1 || size > newest.checkpoint.tree_size) return null;
      const answer = (await getJson(
        `/api/transparency-log?tree_size=${newest.checkpoint.tree_size}&from_size=${size}`,
      )) as { consistency_proof: { hashes: string[] } };
      return answer.consistency_proof.hashes;
    };
    latest = {
      note: newest.checkpoint.note,
      fromBundle: await proofFrom(bundle.checkpoint?.tree_size),
      fromSeen: await proofFrom(seen?.tree_size),
    };
  } catch (error) {
    io.stderr(
      `svc attestation verify: the log's newest checkpoint could not be read (${(error as Error).message})\n`,
    );
  }

  const result = checkAttestation(bundle, keys, localFiles, { seen, latest });
  const failed = result.checks.find((check) => check.ok === false);
  if (!failed && result.newest) {
    seenAll[keys.log_origin] = {
      tree_size: result.newest.treeSize,
      root_hash: result.newest.rootHash.toString("base64"),
    };
    await mkdir(dirname(seenFile), { recursive: true, mode: 0o700 });
    await writeFile(`${seenFile}.tmp`, `${JSON.stringify(seenAll, null, 2)}\n`);
    await rename(`${seenFile}.tmp`, seenFile);
  }

  if (options.json) {
    io.stdout(
      `${JSON.stringify({ ok: !failed, checks: result.checks, statements: result.statements }, null, 2)}\n`,
    );
  } else {
    io.stdout(`${result.checks.map(formatCheck).join("\n")}\n`);
    io.stdout(failed ? `FAILED: ${failed.name}: ${failed.detail}\n` : "OK: every check holds\n");
  }
  return failed ? 1 : 0;
}

function formatCheck(check: Check): string {
  const mark = check.ok === true ? "ok  " : check.ok === false ? "FAIL" : "skip";
  return `${mark} ${check.name}: ${check.detail}`;
}
