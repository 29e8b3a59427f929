import { createHmac, createPrivateKey, type JsonWebKey } from "node:crypto";
import { type SigningSecret, signingKey } from "../../../core/signing/signing-key.ts";

/** PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** A key derived from the service's signing secret for one purpose, so rotating the secret rotates it. */
function derive(secret: SigningSecret, purpose: string): Buffer {
  return createHmac("sha256", signingKey(secret)).update(`svc oauth ${purpose}`).digest();
}

/**
 * The authorization server's keys, all derived from the service's signing secret
 * (`SVC_SIGNING_SECRET` or the one kept in `service_secrets`): every replica derives the same
 * ones and no key material is stored elsewhere. `jwks` holds one Ed25519 key (oidc-provider signs
 * its few JWTs with it; access tokens are opaque); `cookieKeys` sign its interaction cookies.
 * Rotating the signing secret rotates both (docs/operations.md, "Key rotation").
 */
export function oauthKeys(secret: SigningSecret): { jwks: { keys: JsonWebKey[] }; cookieKeys: string[] } {
  const seed = derive(secret, "jwk ed25519");
  const key = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const jwk = key.export({ format: "jwk" });
  return {
    jwks: {
      keys: [{ ...jwk, alg: "EdDSA", use: "sig", kid: derive(secret, "kid").toString("hex").slice(0, 16) }],
    },
    cookieKeys: [derive(secret, "cookies").toString("base64url")],
  };
}
