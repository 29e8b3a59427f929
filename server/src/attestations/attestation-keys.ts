import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { keyIdOf, noteVerifierKey, publicKeyFromRaw, rawPublicKey } from "@svc/app";
import type { Pool, Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";

/** The key the service signs with now. Its private half never leaves the process. */
export interface SigningKey {
  keyId: string;
  publicKey: Buffer;
  privateKey: KeyObject;
}

/** A published key with its validity window (docs/attestations.md "Keys"). */
export interface PublishedKey {
  key_id: string;
  algorithm: "ed25519";
  /** SubjectPublicKeyInfo PEM, for any DSSE or in-toto verifier. */
  public_key_pem: string;
  /** The C2SP signed-note verifier key of the log's checkpoints (name+hash+key). */
  note_verifier_key: string;
  valid_from: string;
  valid_until: string | null;
}

interface KeyRow {
  key_id: string;
  public_key: Buffer;
  private_key: Buffer | null;
  valid_from: Date;
  valid_until: Date | null;
}

/**
 * The active signing key, generated on the first start of a deployment and kept in the database
 * so every replica signs with the same one; or, when the operator configured one
 * (SVC_ATTESTATION_KEY, an Ed25519 PKCS#8 PEM), that key, whose public half is recorded here so it
 * is published. Two replicas starting together both try to insert; the unique index on the active
 * key keeps one and the other reads it.
 */
export async function activeSigningKey(sql: Sql, configuredPem?: string): Promise<SigningKey> {
  const configured = configuredPem ? privateKeyFromPem(configuredPem) : null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const [row] = await sql<KeyRow[]>`
      select key_id, public_key, private_key, valid_from, valid_until from attestation_keys where valid_until is null`;
    if (row) {
      if (configured) {
        const publicKey = rawPublicKey(createPublicKey(configured));
        if (keyIdOf(publicKey) === row.key_id)
          return { keyId: row.key_id, publicKey, privateKey: configured };
        throw new Error(
          "SVC_ATTESTATION_KEY is not the deployment's active attestation key; rotate to it with `svc-server attestation-key rotate` (docs/attestations.md)",
        );
      }
      if (!row.private_key) {
        throw new Error(
          "the active attestation key is a configured secret: set SVC_ATTESTATION_KEY on every process that signs",
        );
      }
      return {
        keyId: row.key_id,
        publicKey: row.public_key,
        privateKey: createPrivateKey({ key: row.private_key, format: "der", type: "pkcs8" }),
      };
    }
    await insertKey(sql, configured ?? generateKeyPairSync("ed25519").privateKey, !configured);
  }
  throw new Error("no active attestation key after three attempts");
}

/**
 * Rotation (`svc-server attestation-key rotate`): the active key's window closes now and a new key
 * (generated, or the configured one) becomes active. Old keys stay published, so everything they
 * signed keeps verifying.
 */
export async function rotateSigningKey(sql: Pool, now: Date, configuredPem?: string): Promise<PublishedKey> {
  const next = configuredPem ? privateKeyFromPem(configuredPem) : generateKeyPairSync("ed25519").privateKey;
  const keyId = keyIdOf(rawPublicKey(createPublicKey(next)));
  await sql.begin(async (tx) => {
    const [current] = await tx<{ key_id: string }[]>`
      update attestation_keys set valid_until = ${now} where valid_until is null returning key_id`;
    if (current?.key_id === keyId) {
      throw new ServiceError("conflict", "that key is already the active attestation key");
    }
    await insertKey(tx, next, !configuredPem, now);
  });
  const published = await publishedKeys(sql, "");
  return published.find((key) => key.key_id === keyId)!;
}

/** Every key ever active, newest first, with the note verifier key for the log named `origin`. */
export async function publishedKeys(sql: Sql, origin: string): Promise<PublishedKey[]> {
  const rows = await sql<KeyRow[]>`
    select key_id, public_key, null::bytea as private_key, valid_from, valid_until
    from attestation_keys order by valid_from desc, key_id`;
  return rows.map((row) => ({
    key_id: row.key_id,
    algorithm: "ed25519",
    public_key_pem: publicKeyPem(row.public_key),
    note_verifier_key: noteVerifierKey(origin, row.public_key),
    valid_from: row.valid_from.toISOString(),
    valid_until: row.valid_until?.toISOString() ?? null,
  }));
}

async function insertKey(sql: Sql, privateKey: KeyObject, storePrivate: boolean, at?: Date): Promise<void> {
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  const der = storePrivate ? privateKey.export({ format: "der", type: "pkcs8" }) : null;
  await sql`
    insert into attestation_keys (key_id, public_key, private_key, valid_from)
    values (${keyIdOf(publicKey)}, ${publicKey}, ${der}, ${at ?? sql`now()`})
    on conflict do nothing`;
}

function privateKeyFromPem(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    // The message never quotes the value: it is a secret.
    throw new Error("SVC_ATTESTATION_KEY is not a PEM private key (PKCS#8, Ed25519)");
  }
  if (key.asymmetricKeyType !== "ed25519") throw new Error("SVC_ATTESTATION_KEY must be an Ed25519 key");
  return key;
}

function publicKeyPem(raw: Buffer): string {
  return publicKeyFromRaw(raw).export({ format: "pem", type: "spki" }).toString();
}
