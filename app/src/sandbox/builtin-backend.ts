import { BUILTINS, type BuiltinRef } from "../catalogue/implementation-catalogue.ts";
import { checkJsonSchema } from "./check-json-schema.ts";
import { type BuiltinVerdict, checkSatAssignment } from "./check-sat-assignment.ts";
import type { CheckerJob, CheckerOutcome, InputFile, SandboxBackend } from "./checker-job.ts";
import { decodeText } from "./decode-json.ts";

/** True when the image_ref names one of the in-process builtins. */
export function isBuiltin(imageRef: string): imageRef is BuiltinRef {
  return Object.hasOwn(BUILTINS, imageRef);
}

/**
 * The `builtin` backend: the two catalogue checkers run in process, on the job's bytes, with no
 * sandbox (they only parse). No duration, exit code, log or evidence is recorded for them
 * (spec 2.4: duration_ms is null for the builtin backend).
 */
export function createBuiltinBackend(): SandboxBackend {
  return {
    name: "builtin",
    run: async (job) => runBuiltin(job),
  };
}

/** Runs a builtin job synchronously; an image_ref that is not a builtin is the caller's error. */
export function runBuiltin(job: CheckerJob): CheckerOutcome {
  const ref = job.implementation.image_ref;
  if (!isBuiltin(ref)) throw new Error(`${ref} is not a builtin checker`);
  const { artifactRole, referenceKey } = BUILTINS[ref];
  const artifact = job.artifacts.find((file) => file.name === artifactRole);
  const reference = job.reference.find((file) => file.name === referenceKey);
  const verdict: BuiltinVerdict =
    artifact === undefined
      ? { result: "inconclusive", summary: `no artifact with role "${artifactRole}" was given` }
      : reference === undefined
        ? { result: "inconclusive", summary: `no reference input "${referenceKey}" was given` }
        : ref === "svc-builtin/json-schema-check:1"
          ? checkJsonSchema(reference.bytes, artifact.bytes)
          : checkSat(reference, artifact);
  return {
    result: verdict.result,
    score: null,
    summary: verdict.summary,
    reason: verdict.result === "inconclusive" ? verdict.summary : null,
    limit: null,
    backend: "builtin",
    exit_code: null,
    duration_ms: null,
    evidence_hash: null,
    evidence: [],
    log: { bytes: new Uint8Array(0), truncated: false },
  };
}

function checkSat(instance: InputFile, assignment: InputFile): BuiltinVerdict {
  const instanceText = decodeText(instance.bytes);
  if (!instanceText.ok)
    return { result: "inconclusive", summary: `the instance is not text: ${instanceText.reason}` };
  const assignmentText = decodeText(assignment.bytes);
  if (!assignmentText.ok) {
    return { result: "inconclusive", summary: `the assignment is not text: ${assignmentText.reason}` };
  }
  return checkSatAssignment(instanceText.value, assignmentText.value);
}
