import { type ContentHash, sha256 } from "../hash/sha256.ts";

/**
 * What a sandbox stage's `implementation` may name, and the fixed records each becomes.
 *
 * Builtins run in process; their image_ref is a name and their digest the hash of that name.
 * Script runtimes are catalogue names whose digest is fixed here, so it is identical on every
 * deployment; the operator binds the name to a real local image once per deployment.
 */
export const BUILTINS = {
  "svc-builtin/json-schema-check:1": { artifactRole: "document", referenceKey: "document_schema" },
  "svc-builtin/sat-assignment-check:1": { artifactRole: "assignment", referenceKey: "instance" },
} as const;
export type BuiltinRef = keyof typeof BUILTINS;

export const PYTHON_RUNTIME = "svc-runtime/python:1";
/** Script checkers are mounted read-only here (spec 2.2). */
export const CHECKER_MOUNT = "/input/checker";
export const MAX_SCRIPT_BYTES = 262_144;

/** The limits a sandbox stage gets for every limit it does not set. */
export const DEFAULT_LIMITS = { vcpu: 1, memory_mb: 512, disk_mb: 256, timeout_seconds: 60 } as const;

/** A public image pinned by digest: registry/repo@sha256:<64 hex>. */
const PINNED_IMAGE =
  /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)+@sha256:[0-9a-f]{64}$/;
/** Looks like an image name, with or without a tag, but not pinned. */
const IMAGE_LIKE = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9._-]+)+(?::[\w.-]+)?$/;

export type ParsedImplementation =
  | { kind: "builtin"; imageRef: BuiltinRef }
  | { kind: "script"; file: string }
  | { kind: "image"; imageRef: string; digest: ContentHash }
  | { kind: "unsupported"; reason: string };

/** Reads an `implementation` string; `file` of a script is relative to the contract's directory. */
export function parseImplementation(value: string): ParsedImplementation {
  if (Object.hasOwn(BUILTINS, value)) return { kind: "builtin", imageRef: value as BuiltinRef };
  if (value.startsWith("svc-builtin/")) {
    return {
      kind: "unsupported",
      reason: `unknown builtin "${value}"; the builtins are ${Object.keys(BUILTINS).join(" and ")}`,
    };
  }
  if (value.startsWith("svc-runtime/")) {
    return {
      kind: "unsupported",
      reason: `"${value}" is a runtime, not a checker; name your script instead ("./checker.py" runs on ${PYTHON_RUNTIME})`,
    };
  }
  if (value.startsWith("./")) {
    const file = value.slice(2);
    if (!file.endsWith(".py") || file.includes("/") || file.length <= 3) {
      return {
        kind: "unsupported",
        reason: `script checkers are Python files next to the contract ("./checker.py") running on ${PYTHON_RUNTIME}; "${value}" is not one`,
      };
    }
    return { kind: "script", file };
  }
  if (PINNED_IMAGE.test(value)) {
    const at = value.lastIndexOf("@");
    return { kind: "image", imageRef: value, digest: value.slice(at + 1) as ContentHash };
  }
  if (IMAGE_LIKE.test(value)) {
    return {
      kind: "unsupported",
      reason: `image "${value}" is not pinned: a tag can move, so name it by digest (registry/repo@sha256:<64 hex>); \`svc verifier build\` writes the pinned reference`,
    };
  }
  return {
    kind: "unsupported",
    reason: `"${value}" is neither a builtin, a "./<name>.py" script, nor an image pinned as registry/repo@sha256:<64 hex>`,
  };
}

/** The image digest recorded for a builtin or a script runtime: the hash of its catalogue name. */
export function catalogueDigest(imageRef: string): ContentHash {
  return sha256(imageRef);
}
