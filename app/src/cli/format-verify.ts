import type { StageResult } from "../sandbox/checker-job.ts";

/** One Contract stage as `svc verify` reports it; `ran` is false for a stage not run here. */
export interface StageReport {
  stage_key: string;
  kind: string;
  ran: boolean;
  result: StageResult | null;
  score: number | null;
  summary: string;
  notes: string[];
  verifier_implementation_id: string | null;
  version_number: number | null;
  backend: string | null;
  limit: string | null;
  evidence_hash: string | null;
  duration_ms: number | null;
}

/** `svc verify --json`: the local verdict over the stages run here, and every stage. */
export interface VerifyReport {
  ok: boolean;
  /** The verdict of the stages run here (`runVerdict`); null when none could run. */
  result: StageResult | null;
  score: number | null;
  problem: string;
  revision: number;
  verifier_contract_id: string;
  sandbox: string;
  /** Always false: a preflight submits nothing and consumes no quota. */
  submitted: false;
  stages: StageReport[];
}

/** The human report: a header, one line per stage with its notes, and the verdict line. */
export function formatVerifyReport(report: VerifyReport): string {
  const lines = [
    `problem ${report.problem} revision ${report.revision} (${report.verifier_contract_id}); sandbox: ${report.sandbox}`,
  ];
  for (const stage of report.stages) {
    const head = stage.ran
      ? `${stage.result}${stage.score !== null ? ` (score ${stage.score})` : ""}`
      : "not run";
    const where =
      stage.backend !== null
        ? ` [${stage.backend}${stage.duration_ms !== null ? `, ${stage.duration_ms} ms` : ""}]`
        : "";
    const version = stage.version_number !== null ? ` v${stage.version_number}` : "";
    lines.push(
      `${stage.stage_key} (${stage.kind}${version}): ${head}${where}${stage.summary ? `: ${stage.summary}` : ""}`,
    );
    for (const note of stage.notes) lines.push(`  note: ${note}`);
  }
  const verdict =
    report.result === null
      ? "not checked: no stage could run here"
      : `${report.result}${report.score !== null ? ` (score ${report.score})` : ""}`;
  lines.push(`result: ${verdict} (local preflight: nothing submitted, no quota used)`);
  return `${lines.join("\n")}\n`;
}
