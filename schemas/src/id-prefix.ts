/**
 * Record ids: a three-letter prefix naming the kind of record, `_`, and 10 to 32 characters of
 * [0-9a-z] (spec section 2). The service mints 20; anything in the range is well formed.
 */

/** Every id prefix (spec section 2; `tok_` is the service's own). */
export const IdPrefix = {
  user: "usr",
  organization: "org",
  token: "tok",
  session: "ses",
  signInLink: "sil",
  campaign: "cmp",
  problem: "prb",
  problemRevision: "prv",
  skill: "skl",
  skillVersion: "skv",
  reviewProtocol: "rpt",
  verifierContract: "vct",
  verifierImplementation: "vfi",
  authoringUpload: "aup",
  workDraft: "wdr",
  publicationRequest: "pbr",
  attempt: "att",
  note: "nte",
  artifact: "art",
  artifactUpload: "aru",
  submission: "sub",
  verificationRun: "vrn",
  reviewProcess: "rpr",
  reviewAssignment: "ras",
  eventSubscription: "esb",
  criteriaChange: "crc",
  agentWant: "wnt",
  agentJobLease: "ajl",
  agentUsage: "agu",
} as const;
export type IdPrefix = (typeof IdPrefix)[keyof typeof IdPrefix];

/** The unanchored pattern of an id with `prefix`, for embedding in a larger pattern. */
export function idPatternSource(prefix: IdPrefix): string {
  return `${prefix}_[0-9a-z]{10,32}`;
}

const anchored = new Map<IdPrefix, RegExp>();

/** The anchored pattern of a whole id with `prefix`: `^<prefix>_[0-9a-z]{10,32}$` (no flags, so reusable). */
export function idPattern(prefix: IdPrefix): RegExp {
  let pattern = anchored.get(prefix);
  if (!pattern) {
    pattern = new RegExp(`^${idPatternSource(prefix)}$`);
    anchored.set(prefix, pattern);
  }
  return pattern;
}

/** Whether `value` is a well-formed id with `prefix`. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return idPattern(prefix).test(value);
}
