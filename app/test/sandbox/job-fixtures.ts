import {
  catalogueDigest,
  DEFAULT_LIMITS,
  PYTHON_RUNTIME,
} from "../../src/catalogue/implementation-catalogue.ts";
import { sha256 } from "../../src/hash/sha256.ts";
import type { CheckerJob, CheckerLimits, InputFile } from "../../src/sandbox/checker-job.ts";

/** One input file from text or bytes. */
export function input(
  name: string,
  filename: string,
  content: string | Uint8Array,
  media_type = "text/plain",
): InputFile {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  return { name, filename, media_type, content_hash: sha256(bytes), size_bytes: bytes.length, bytes };
}

/** A builtin job on the given inputs. */
export function builtinJob(imageRef: string, artifacts: InputFile[], reference: InputFile[]): CheckerJob {
  return {
    stage_key: "check",
    result_kind: "pass_fail",
    implementation: {
      image_ref: imageRef,
      image_digest: catalogueDigest(imageRef),
      entrypoint: ["builtin"],
      limits: { ...DEFAULT_LIMITS },
      program: null,
    },
    artifacts,
    reference,
    evidence_schema: null,
  };
}

/** Small limits so hostile checkers end quickly. */
export const TEST_LIMITS: CheckerLimits = { vcpu: 1, memory_mb: 128, disk_mb: 16, timeout_seconds: 4 };

/** A python script job (svc-runtime/python:1) running `source` on one `answer` artifact. */
export function scriptJob(
  source: string,
  options: Partial<Pick<CheckerJob, "result_kind" | "evidence_schema" | "artifacts" | "reference">> & {
    limits?: Partial<CheckerLimits>;
  } = {},
): CheckerJob {
  return {
    stage_key: "check_answer",
    result_kind: options.result_kind ?? "pass_fail",
    implementation: {
      image_ref: PYTHON_RUNTIME,
      image_digest: catalogueDigest(PYTHON_RUNTIME),
      entrypoint: ["python3", "/input/checker/checker.py"],
      limits: { ...TEST_LIMITS, ...options.limits },
      program: { filename: "checker.py", bytes: new TextEncoder().encode(source) },
    },
    artifacts: options.artifacts ?? [input("answer", "answer.txt", "1234\n")],
    reference: options.reference ?? [],
    evidence_schema: options.evidence_schema ?? null,
  };
}
