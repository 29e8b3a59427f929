import type { EvidenceFile } from "./read-stage-log.ts";

/** A stage's evidence as the HTTP route and the MCP resource return it. */
export interface EvidenceListing {
  verification_run_id: string;
  stage_key: string;
  /** The tree digest over the files (mechanism.sandbox.evidence_hash), null when there are none. */
  evidence_hash: string | null;
  /** Sorted by path; `url` downloads a file's bytes (a symbolic link has no url). */
  files: Array<EvidenceFile & { url: string | null }>;
}

/** The listing of a stage's evidence, each file with the web address of its bytes. */
export function evidenceListing(
  baseUrl: string,
  runId: string,
  stageKey: string,
  evidence: { evidence_hash: string | null; files: EvidenceFile[] },
): EvidenceListing {
  const base = `${baseUrl}/verifications/${encodeURIComponent(runId)}/stages/${encodeURIComponent(stageKey)}/evidence`;
  return {
    verification_run_id: runId,
    stage_key: stageKey,
    evidence_hash: evidence.evidence_hash,
    files: evidence.files.map((file) => ({
      ...file,
      url:
        file.link_target === undefined
          ? `${base}/${file.path.split("/").map(encodeURIComponent).join("/")}`
          : null,
    })),
  };
}
