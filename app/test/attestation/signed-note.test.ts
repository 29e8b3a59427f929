import { generateKeyPairSync } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  noteVerifierKey,
  openCheckpoint,
  openNote,
  parseNoteVerifierKey,
  rawPublicKey,
  signCheckpoint,
} from "../../src/attestation/signed-note.ts";

/** The example of golang.org/x/mod/sumdb/note's documentation: a verifier key and a note it signed. */
const GO_KEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const GO_NOTE =
  "If you think cryptography is the answer to your problem,\n" +
  "then you don't know what your problem is.\n" +
  "\n" +
  "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

describe("signed notes and checkpoints (C2SP signed-note, tlog-checkpoint)", () => {
  it("verifies the Go reference implementation's example note with its verifier key", () => {
    const key = parseNoteVerifierKey(GO_KEY);
    expect(key?.name).toBe("PeterNeumann");
    expect(openNote(GO_NOTE, [key!])).toMatchObject({ ok: true, signedBy: "PeterNeumann" });
    expect(noteVerifierKey("PeterNeumann", key!.publicKey)).toBe(GO_KEY);
  });

  it("round-trips a checkpoint and refuses it with any byte changed", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const raw = rawPublicKey(publicKey);
    const trusted = [{ name: "example.test/log", publicKey: raw }];
    fc.assert(
      fc.property(
        fc.nat({ max: 2 ** 40 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.nat(),
        (size, root, at) => {
          const note = signCheckpoint(
            { origin: "example.test/log", treeSize: size, rootHash: Buffer.from(root) },
            "example.test/log",
            privateKey,
            raw,
          );
          expect(openCheckpoint(note, trusted)).toMatchObject({ ok: true, checkpoint: { treeSize: size } });
          const i = at % note.length;
          const changed = note.slice(0, i) + String.fromCharCode(note.charCodeAt(i) ^ 1) + note.slice(i + 1);
          expect(openCheckpoint(changed, trusted).ok).toBe(false);
        },
      ),
    );
  });

  it("refuses a checkpoint signed by a key that is not published", () => {
    const signer = generateKeyPairSync("ed25519");
    const other = generateKeyPairSync("ed25519");
    const note = signCheckpoint(
      { origin: "o", treeSize: 1, rootHash: Buffer.alloc(32) },
      "o",
      signer.privateKey,
      rawPublicKey(signer.publicKey),
    );
    const reading = openCheckpoint(note, [{ name: "o", publicKey: rawPublicKey(other.publicKey) }]);
    expect(reading).toMatchObject({ ok: false, reason: expect.stringMatching(/no signature .* published/) });
  });
});
