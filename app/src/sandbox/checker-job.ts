import type { CheckerResult, ResultKind, RuntimeBackend } from "@svc/schemas";
import type { ContentHash } from "../hash/sha256.ts";

/**
 * The checker contract (spec 2.2, decisions.md), shared by `svc test`, `svc verify` and the
 * service's worker: what one sandbox stage run is given, and what it gives back.
 *
 * Glossary: a *job* is one stage run on one set of inputs; a *backend* runs jobs (builtin in
 * process, bwrap, docker); an *outcome* is the job's result plus everything the run record keeps.
 */

export type StageResult = CheckerResult | "error";

/** `none`: no backend could run the job (a script runtime unbound on this machine). */
export const BackendName = { builtin: "builtin", bwrap: "bwrap", docker: "docker", none: "none" } as const;
export type BackendName = (typeof BackendName)[keyof typeof BackendName];

/** Resource limits of one run (spec 2.2 `limits`, network always none). */
export interface CheckerLimits {
  vcpu: number;
  memory_mb: number;
  disk_mb: number;
  timeout_seconds: number;
}

/** One file mounted under /input: an artifact (by role) or a reference input (by slot key). */
export interface InputFile {
  /** The role (artifacts) or slot key (reference). */
  name: string;
  filename: string;
  media_type: string;
  content_hash: ContentHash;
  size_bytes: number;
  bytes: Uint8Array;
}

/** The implementation a job runs, as the VerifierImplementation record has it. */
export interface CheckerImplementation {
  /** `svc-builtin/...`, `svc-runtime/python:1`, or `registry/repo@sha256:...`. */
  image_ref: string;
  image_digest: ContentHash;
  entrypoint: string[];
  limits: CheckerLimits;
  /** Script checkers: the program mounted read-only at /input/checker/<filename>. */
  program: { filename: string; bytes: Uint8Array } | null;
}

export interface CheckerJob {
  stage_key: string;
  result_kind: ResultKind;
  implementation: CheckerImplementation;
  artifacts: InputFile[];
  reference: InputFile[];
  /** JSON Schema `evidence/summary.json` must satisfy, or null. */
  evidence_schema: object | null;
}

/**
 * A file the checker left under /output/evidence/, relative path with `/`. A symlink is kept as
 * a link: `link_target` holds its target string, `bytes` is empty, and nothing is read through it.
 */
export interface EvidenceFile {
  path: string;
  /** The file's bytes; empty for a link, and for a file already kept (content_hash is then set). */
  bytes: Uint8Array;
  /** Present exactly when the entry is a symbolic link. */
  link_target?: string;
  /** Set when the file was streamed to the caller's store as it was read (KeepEvidence): its bytes are not held. */
  content_hash?: string;
  size_bytes?: number;
}

/**
 * Stores one evidence file as the host reads it from the run's disk, and says what it stored: the
 * service passes its blob store's put, so a run's evidence is never held in memory whole.
 */
export type KeepEvidence = (
  source: AsyncIterable<Uint8Array>,
) => Promise<{ content_hash: string; size_bytes: number }>;

/** What a backend may be given besides the job. */
export interface BackendRunOptions {
  keepEvidence?: KeepEvidence;
}

/** Which limit ended a run, when one did. */
export const LimitName = {
  timeout: "timeout",
  memory: "memory",
  processes: "processes",
  disk: "disk",
  output: "output",
} as const;
export type LimitName = (typeof LimitName)[keyof typeof LimitName];

export interface CheckerOutcome {
  result: StageResult;
  /** From result.json, when the result is verified and result_kind is score. */
  score: number | null;
  /** result.json's `summary`, or the reason the service decided the result itself. */
  summary: string;
  /** Why the result is inconclusive or error when the checker did not say so itself; else null. */
  reason: string | null;
  /** The limit that ended the run, or null. */
  limit: LimitName | null;
  backend: BackendName;
  /** null when killed by a limit or for builtins. */
  exit_code: number | null;
  /** null for builtins. */
  duration_ms: number | null;
  /** Tree digest of /output/evidence (symlinks hashed as links, never followed), or null when empty. */
  evidence_hash: ContentHash | null;
  evidence: EvidenceFile[];
  /** stdout then stderr, cut at the capture ceiling. */
  log: { bytes: Uint8Array; truncated: boolean };
}

/** How a script runtime or custom image is realised on this machine. */
export interface RuntimeBinding {
  backend: RuntimeBackend;
  /**
   * docker: a local image id or digest-pinned reference; bwrap: the host interpreter path, or the
   * ChainID of a bound image (then `rootfs` is where it is unpacked).
   */
  local_image: string;
  /** bwrap: the image's unpacked root the checker runs in (runtime-rootfs.ts); absent: the host's /usr. */
  rootfs?: string | undefined;
  /** The OCI ChainID of the bytes that run (runtime-rootfs.ts); null: the host's own interpreter. */
  bytes_digest?: string | null | undefined;
  /** bwrap image bindings: where a host without the unpacked root copies it from (a skopeo reference). */
  source?: string | null | undefined;
}

/** Runs jobs; `builtin` needs nothing, the others need their engine. */
export interface SandboxBackend {
  readonly name: BackendName;
  run(job: CheckerJob, binding: RuntimeBinding | null, options?: BackendRunOptions): Promise<CheckerOutcome>;
  /** Releases what the backend keeps warm between runs (pooled disks, containers); runs after it fail. */
  close?(): Promise<void>;
}
