import { canonicalJson } from "../hash/sha256.ts";
import { type DsseEnvelope, IN_TOTO_PAYLOAD_TYPE, openEnvelope } from "./dsse.ts";
import { leafHash, verifyConsistency, verifyInclusion } from "./merkle.ts";
import {
  type Commitment,
  commitmentOf,
  type Opening,
  RUN_PREDICATE_TYPE,
  type RunStatement,
  STATEMENT_TYPE,
} from "./run-statement.ts";
import { type Checkpoint, openCheckpoint, parseNoteVerifierKey } from "./signed-note.ts";

/** The published keys document (GET /.well-known/svc-attestation-keys). */
export interface KeysDocument {
  log_origin: string;
  keys: Array<{
    key_id: string;
    public_key_pem: string;
    note_verifier_key: string;
    valid_from: string;
    valid_until: string | null;
  }>;
}

/** One attestation as the service serves it (get_run_attestations). */
export interface AttestationBundleEntry {
  log_index: number;
  envelope: DsseEnvelope;
  openings?: Record<string, Opening> | null;
  inclusion_proof: { log_index: number; tree_size: number; hashes: string[] };
}

/** What `svc attestation verify` reads from a file or the service: attestations and their checkpoint. */
export interface AttestationBundle {
  verification_run_id?: string;
  attestations: AttestationBundleEntry[];
  checkpoint: { note: string; tree_size: number } | null;
}

/** A checkpoint a client saw before, and a newer one with the proof that it extends it. */
export interface LogHistory {
  /** The last checkpoint this machine saw (kept in the user's config directory), if any. */
  seen: { tree_size: number; root_hash: string } | null;
  /** The log's newest checkpoint now, with proofs from the bundle's and the seen sizes; null offline. */
  latest: {
    note: string;
    fromBundle: string[] | null;
    fromSeen: string[] | null;
  } | null;
}

export interface Check {
  name: string;
  /** null: not checked (and why is in detail). */
  ok: boolean | null;
  detail: string;
}

export interface CheckedAttestation {
  checks: Check[];
  /** The Statements as signed, in the bundle's order. */
  statements: RunStatement[];
  /**
   * The same Statements with every released value in place of its commitment (only openings that
   * open the signed commitment): what a replay of a sealed run compares with once it is released.
   */
  opened: RunStatement[];
  /** The newest checkpoint verified, for the caller to remember. */
  newest: Checkpoint | null;
}

/**
 * Checks attestations without trusting the service that served them: each envelope's signature
 * against the published keys (and the key's validity window), the Statement's type, the local
 * files against the subjects, every opening against its commitment, the inclusion of each envelope
 * in the signed checkpoint, and that checkpoint's consistency with the newest one and with the
 * last one this machine saw (a log rewritten behind the client's back fails here).
 */
export function checkAttestation(
  bundle: AttestationBundle,
  keys: KeysDocument,
  localFiles: ReadonlyArray<{ path: string; sha256: string }>,
  history: LogHistory,
): CheckedAttestation {
  const checks: Check[] = [];
  const statements: RunStatement[] = [];
  const withReleased: RunStatement[] = [];
  const envelopeKeys = keys.keys.map((key) => ({
    keyId: key.key_id,
    publicKey: parseNoteVerifierKey(key.note_verifier_key)?.publicKey ?? Buffer.alloc(0),
  }));
  const noteKeys = keys.keys.flatMap((key) => parseNoteVerifierKey(key.note_verifier_key) ?? []);
  if (bundle.attestations.length === 0) {
    checks.push({
      name: "attestations",
      ok: false,
      detail: "there is no attestation to check (the run may still be queued)",
    });
    return { checks, statements, opened: withReleased, newest: null };
  }

  for (const entry of bundle.attestations) {
    const label = `attestation ${entry.log_index}`;
    const opened = openEnvelope(entry.envelope, envelopeKeys);
    if (!opened.ok) {
      checks.push({ name: `${label}: signature`, ok: false, detail: opened.reason });
      continue;
    }
    if (entry.envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
      checks.push({
        name: `${label}: signature`,
        ok: false,
        detail: `payloadType is ${entry.envelope.payloadType}`,
      });
      continue;
    }
    let statement: RunStatement;
    try {
      statement = JSON.parse(opened.payload.toString("utf8")) as RunStatement;
    } catch {
      checks.push({ name: `${label}: statement`, ok: false, detail: "the signed payload is not JSON" });
      continue;
    }
    const key = keys.keys.find((candidate) => candidate.key_id === opened.keyId)!;
    const issued = Date.parse(statement.predicate?.issued_at ?? "");
    const inWindow =
      issued >= Date.parse(key.valid_from) &&
      (key.valid_until === null || issued <= Date.parse(key.valid_until));
    checks.push({
      name: `${label}: signature`,
      ok: inWindow,
      detail: inWindow
        ? `valid, by key ${key.key_id.slice(0, 16)} (valid from ${key.valid_from}${key.valid_until ? ` to ${key.valid_until}` : ""})`
        : `signed by key ${key.key_id.slice(0, 16)} outside its validity window (issued ${statement.predicate?.issued_at})`,
    });
    const typed = statement._type === STATEMENT_TYPE && statement.predicateType === RUN_PREDICATE_TYPE;
    checks.push({
      name: `${label}: statement`,
      ok: typed,
      detail: typed
        ? `${statement.predicate.reason} of run ${statement.predicate.run.verification_run_id}: result ${show(statement.predicate.run.result)}, score ${show(statement.predicate.run.score)}`
        : `unexpected types ${statement._type} / ${statement.predicateType}`,
    });
    statements.push(statement);
    const released = structuredClone(statement);
    for (const [pointer, opening] of Object.entries(entry.openings ?? {})) {
      const committed = valueAt(statement.predicate, pointer) as Commitment | undefined;
      const ok = committed?.commitment === commitmentOf(Buffer.from(opening.nonce, "base64"), opening.value);
      if (ok) setValueAt(released.predicate, pointer, opening.value);
      checks.push({
        name: `${label}: opening ${pointer}`,
        ok,
        detail: ok
          ? `released value ${JSON.stringify(opening.value)}`
          : "does not open the commitment signed here",
      });
    }
    withReleased.push(released);
  }

  for (const file of localFiles) {
    const digest = file.sha256.replace(/^sha256:/, "");
    const subject = statements
      .flatMap((s) => s.subject)
      .find((candidate) => candidate.digest.sha256 === digest);
    checks.push({
      name: `subject ${file.path}`,
      ok: subject !== undefined,
      detail: subject ? `matches ${subject.name}` : `sha256:${digest} is not a subject of the attestation`,
    });
  }

  const bundled = bundle.checkpoint ? openCheckpoint(bundle.checkpoint.note, noteKeys) : null;
  if (!bundled?.ok) {
    checks.push({
      name: "checkpoint",
      ok: false,
      detail: bundled ? bundled.reason : "no checkpoint came with the attestations",
    });
    return { checks, statements, opened: withReleased, newest: null };
  }
  if (bundled.checkpoint.origin !== keys.log_origin) {
    checks.push({
      name: "checkpoint",
      ok: false,
      detail: `origin ${bundled.checkpoint.origin} is not ${keys.log_origin}`,
    });
    return { checks, statements, opened: withReleased, newest: null };
  }
  checks.push({
    name: "checkpoint",
    ok: true,
    detail: `signed by ${bundled.signedBy}, tree size ${bundled.checkpoint.treeSize}`,
  });
  for (const entry of bundle.attestations) {
    const failure =
      entry.inclusion_proof.tree_size !== bundled.checkpoint.treeSize
        ? `the proof is for a tree of ${entry.inclusion_proof.tree_size}, the checkpoint's is ${bundled.checkpoint.treeSize}`
        : verifyInclusion(
            leafHash(Buffer.from(canonicalJson(entry.envelope))),
            entry.log_index,
            bundled.checkpoint.treeSize,
            entry.inclusion_proof.hashes.map((hash) => Buffer.from(hash, "base64")),
            bundled.checkpoint.rootHash,
          );
    checks.push({
      name: `attestation ${entry.log_index}: in the log`,
      ok: failure === null,
      detail: failure ?? `included at index ${entry.log_index} of ${bundled.checkpoint.treeSize}`,
    });
  }

  let newest: Checkpoint = bundled.checkpoint;
  if (history.latest === null) {
    checks.push({
      name: "log history",
      ok: null,
      detail: "not checked: the service's newest checkpoint could not be read",
    });
  } else {
    const latest = openCheckpoint(history.latest.note, noteKeys);
    if (!latest.ok || latest.checkpoint.origin !== keys.log_origin) {
      checks.push({
        name: "log history",
        ok: false,
        detail: latest.ok ? "the newest checkpoint names another log" : latest.reason,
      });
      return { checks, statements, opened: withReleased, newest: null };
    }
    newest = latest.checkpoint;
    checks.push(
      consistencyCheck(
        "consistent with the newest checkpoint",
        bundled.checkpoint,
        newest,
        history.latest.fromBundle,
      ),
    );
    if (history.seen) {
      const seen = {
        origin: keys.log_origin,
        treeSize: history.seen.tree_size,
        rootHash: Buffer.from(history.seen.root_hash, "base64"),
      };
      checks.push(
        consistencyCheck(
          "consistent with the checkpoint this machine saw before",
          seen,
          newest,
          history.latest.fromSeen,
        ),
      );
    }
  }
  return { checks, statements, opened: withReleased, newest };
}

function consistencyCheck(name: string, older: Checkpoint, newer: Checkpoint, proof: string[] | null): Check {
  if (older.treeSize > newer.treeSize) {
    return { name, ok: false, detail: `the log shrank from ${older.treeSize} to ${newer.treeSize} entries` };
  }
  const failure = verifyConsistency(
    older.treeSize,
    newer.treeSize,
    older.rootHash,
    newer.rootHash,
    (proof ?? []).map((hash) => Buffer.from(hash, "base64")),
  );
  return {
    name,
    ok: failure === null,
    detail: failure ?? `the tree of ${older.treeSize} is a prefix of the tree of ${newer.treeSize}`,
  };
}

function valueAt(root: unknown, pointer: string): unknown {
  let at: unknown = root;
  for (const part of pointer.split("/").slice(1)) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[pointerSegment(part)];
  }
  return at;
}

/** Replaces the value at `pointer` (its parent must exist): the opened value in a copy of a Statement. */
function setValueAt(root: unknown, pointer: string, value: unknown): void {
  const cut = pointer.lastIndexOf("/");
  const parent = valueAt(root, pointer.slice(0, cut));
  if (cut >= 0 && parent !== null && typeof parent === "object")
    (parent as Record<string, unknown>)[pointerSegment(pointer.slice(cut + 1))] = value;
}

/** One JSON Pointer segment unescaped (RFC 6901: ~1 is "/", ~0 is "~"). */
function pointerSegment(part: string): string {
  return part.replaceAll("~1", "/").replaceAll("~0", "~");
}

function show(value: unknown): string {
  if (value !== null && typeof value === "object" && "commitment" in value) return "withheld (committed)";
  return JSON.stringify(value);
}
