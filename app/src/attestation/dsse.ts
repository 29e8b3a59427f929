import { createHash, type KeyObject, sign, verify } from "node:crypto";
import { dsse } from "@sigstore/core";
import { publicKeyFromRaw } from "./signed-note.ts";

/**
 * DSSE envelopes (github.com/secure-systems-lab/dsse, v1.0), the signature wrapper of in-toto
 * attestations: the signature is over the pre-authentication encoding of the payload type and
 * bytes (PAE, from Sigstore's @sigstore/core, the implementation Sigstore's own verifier uses).
 */
export interface DsseEnvelope {
  payloadType: string;
  /** base64 of the payload bytes. */
  payload: string;
  signatures: Array<{ keyid: string; sig: string }>;
}

/** in-toto's payload type for a Statement. */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

/** A key's id in envelopes: the hex sha256 of its raw 32-byte Ed25519 public key. */
export function keyIdOf(publicKey: Uint8Array): string {
  return createHash("sha256").update(publicKey).digest("hex");
}

export function signEnvelope(
  payloadType: string,
  payload: Buffer,
  key: { keyId: string; privateKey: KeyObject },
): DsseEnvelope {
  const sig = sign(null, dsse.preAuthEncoding(payloadType, payload), key.privateKey);
  return {
    payloadType,
    payload: payload.toString("base64"),
    signatures: [{ keyid: key.keyId, sig: sig.toString("base64") }],
  };
}

export type EnvelopeReading = { ok: true; payload: Buffer; keyId: string } | { ok: false; reason: string };

/** Checks an envelope's signatures against trusted keys: one valid signature by one of them suffices. */
export function openEnvelope(
  envelope: DsseEnvelope,
  trusted: ReadonlyArray<{ keyId: string; publicKey: Uint8Array }>,
): EnvelopeReading {
  if (typeof envelope?.payload !== "string" || typeof envelope.payloadType !== "string") {
    return { ok: false, reason: "the envelope has no payload or payloadType" };
  }
  const payload = Buffer.from(envelope.payload, "base64");
  if (payload.toString("base64") !== envelope.payload)
    return { ok: false, reason: "the envelope's payload is not base64" };
  const pae = dsse.preAuthEncoding(envelope.payloadType, payload);
  for (const signature of envelope.signatures ?? []) {
    const key = trusted.find((candidate) => candidate.keyId === signature.keyid);
    if (!key) continue;
    if (verify(null, pae, publicKeyFromRaw(key.publicKey), Buffer.from(signature.sig, "base64"))) {
      return { ok: true, payload, keyId: key.keyId };
    }
    return {
      ok: false,
      reason: `the envelope's signature by key ${signature.keyid.slice(0, 16)}… does not verify`,
    };
  }
  return { ok: false, reason: "no signature on the envelope is by a published attestation key" };
}
