/** Why a signed URL was refused. A route answers all three the same way; the reason is for logs. */
export const SignedUrlFailure = {
  /** Not `<payload>.<signature>` in base64url, or a payload without the expected claims. */
  malformed: "malformed",
  /** Well formed, but not signed by this server for this kind of URL and exactly these claims. */
  bad_signature: "bad_signature",
  /** Authentic, and the clock has reached its expiry. */
  expired: "expired",
} as const;
export type SignedUrlFailure = (typeof SignedUrlFailure)[keyof typeof SignedUrlFailure];
