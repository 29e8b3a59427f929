import { randomChars } from "./random-chars.ts";

/** The id prefixes this part of the service mints (spec section 2; `tok_` is the service's own). */
export const IdPrefix = {
  user: "usr",
  organization: "org",
  token: "tok",
  campaign: "cmp",
  problem: "prb",
  problemRevision: "prv",
  skill: "skl",
  skillVersion: "skv",
  reviewProtocol: "rpt",
  verifierContract: "vct",
  verifierImplementation: "vfi",
  authoringUpload: "aup",
  attempt: "att",
  note: "nte",
  artifact: "art",
  artifactUpload: "aru",
  submission: "sub",
  verificationRun: "vrn",
  reviewProcess: "rpr",
  reviewAssignment: "ras",
} as const;
export type IdPrefix = (typeof IdPrefix)[keyof typeof IdPrefix];

const ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** A new random id: the prefix, `_` and 20 characters of [0-9a-z] (about 103 bits). */
export function randomId(prefix: IdPrefix): string {
  return `${prefix}_${randomChars(ID_ALPHABET, 20)}`;
}
