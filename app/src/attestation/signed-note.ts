import { createHash, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

/**
 * Checkpoints in C2SP's signed-note format (c2sp.org/signed-note, c2sp.org/tlog-checkpoint), the
 * format Go's sumdb, Sigstore's Rekor v2 and every tlog-witness read:
 *
 *     <origin>\n<tree size>\n<base64 root hash>\n\n— <key name> <base64(key hash[4] || signature)>\n
 *
 * The signature is Ed25519 over the body (the text before the blank line, its final newline
 * included); the 4-byte key hash is sha256(name || "\n" || 0x01 || public key)[:4], and a
 * verifier key is written `<name>+<hex key hash>+<base64(0x01 || public key)>`. No maintained
 * JavaScript implementation exists (Go's golang.org/x/mod/sumdb/note is the reference), so it is
 * written here from the specification, with its vectors in the tests.
 */

const ED25519 = 0x01;
const SIGNATURE_PREFIX = "\u2014 ";
/** The DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export interface Checkpoint {
  origin: string;
  treeSize: number;
  rootHash: Buffer;
}

export function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: "der", type: "spki" }).subarray(ED25519_SPKI_PREFIX.length);
}

export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: "der", type: "spki" });
}

export function noteKeyHash(name: string, publicKey: Uint8Array): Buffer {
  return createHash("sha256")
    .update(`${name}\n`)
    .update(Buffer.of(ED25519))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

/** The verifier key string of a note signer (name+hash+key), as published beside the log. */
export function noteVerifierKey(name: string, publicKey: Uint8Array): string {
  const hash = noteKeyHash(name, publicKey).toString("hex");
  return `${name}+${hash}+${Buffer.concat([Buffer.of(ED25519), publicKey]).toString("base64")}`;
}

/** A verifier key parsed back: its name and raw public key; null when it is not one. */
export function parseNoteVerifierKey(text: string): { name: string; publicKey: Buffer } | null {
  // The key is base64 and may itself hold '+': split at the first two only.
  const match = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(text);
  if (!match) return null;
  const [, name, hash, key] = match as unknown as [string, string, string, string];
  const bytes = Buffer.from(key, "base64");
  if (bytes.length !== 33 || bytes[0] !== ED25519) return null;
  const publicKey = bytes.subarray(1);
  return noteKeyHash(name, publicKey).toString("hex") === hash ? { name, publicKey } : null;
}

export function checkpointBody({ origin, treeSize, rootHash }: Checkpoint): string {
  return `${origin}\n${treeSize}\n${rootHash.toString("base64")}\n`;
}

/** A checkpoint signed by one key named `name` (the log's origin, by convention). */
export function signCheckpoint(
  checkpoint: Checkpoint,
  name: string,
  privateKey: KeyObject,
  publicKey: Uint8Array,
): string {
  const body = checkpointBody(checkpoint);
  const signature = sign(null, Buffer.from(body), privateKey);
  const blob = Buffer.concat([noteKeyHash(name, publicKey), signature]).toString("base64");
  return `${body}\n${SIGNATURE_PREFIX}${name} ${blob}\n`;
}

export type CheckpointReading =
  | { ok: true; checkpoint: Checkpoint; signedBy: string }
  | { ok: false; reason: string };

export type NoteReading = { ok: true; body: string; signedBy: string } | { ok: false; reason: string };

/** Checks a signed note: one signature line by a trusted key over the body must verify. */
export function openNote(
  note: string,
  trusted: ReadonlyArray<{ name: string; publicKey: Uint8Array }>,
): NoteReading {
  const split = note.indexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) return { ok: false, reason: "the checkpoint is not a signed note" };
  const body = note.slice(0, split + 1);
  for (const line of note.slice(split + 2, -1).split("\n")) {
    if (!line.startsWith(SIGNATURE_PREFIX)) return { ok: false, reason: "a signature line is malformed" };
    const [name, blobText] = line.slice(SIGNATURE_PREFIX.length).split(" ");
    const blob = Buffer.from(blobText ?? "", "base64");
    // Only the canonical base64 of the bytes: a changed padding bit decodes to the same signature.
    if (blob.toString("base64") !== blobText) return { ok: false, reason: "a signature line is malformed" };
    for (const key of trusted) {
      if (key.name !== name || blob.length !== 68) continue;
      if (!blob.subarray(0, 4).equals(noteKeyHash(key.name, key.publicKey))) continue;
      if (verify(null, Buffer.from(body), publicKeyFromRaw(key.publicKey), blob.subarray(4))) {
        return { ok: true, body, signedBy: key.name };
      }
      return { ok: false, reason: `the checkpoint's signature by ${name} does not verify` };
    }
  }
  return { ok: false, reason: "no signature on the checkpoint is by a published log key" };
}

/**
 * Parses a signed checkpoint and checks one signature by a trusted key. Lines are strict: a
 * checkpoint that is not byte for byte what a signer wrote is refused with why.
 */
export function openCheckpoint(
  note: string,
  trusted: ReadonlyArray<{ name: string; publicKey: Uint8Array }>,
): CheckpointReading {
  const opened = openNote(note, trusted);
  if (!opened.ok) return opened;
  const lines = opened.body.slice(0, -1).split("\n");
  if (lines.length < 3) return { ok: false, reason: "the checkpoint body needs origin, size and root hash" };
  const [origin, sizeText, rootText] = lines as [string, string, string];
  const rootHash = Buffer.from(rootText, "base64");
  if (!/^\d{1,16}$/.test(sizeText) || rootHash.length !== 32 || rootHash.toString("base64") !== rootText) {
    return { ok: false, reason: "the checkpoint's size or root hash is malformed" };
  }
  return {
    ok: true,
    checkpoint: { origin, treeSize: Number(sizeText), rootHash },
    signedBy: opened.signedBy,
  };
}
