import { CheckerResult } from "@svc/schemas";
import { decodeJson } from "./decode-json.ts";
import type { ParseResult } from "./parse-dimacs.ts";

/** `/output/result.json` as a checker writes it (decisions.md). */
export interface ResultFile {
  result: CheckerResult;
  score: number | null;
  summary: string | null;
}

/** Longest summary kept from result.json; evidence_md holds at most 20000 characters. */
export const MAX_SUMMARY_CHARS = 4000;

/**
 * Reads result.json: an object with `result` one of verified, refuted, inconclusive, an optional
 * finite number `score` and an optional string `summary` (cut at MAX_SUMMARY_CHARS). Other keys
 * are ignored so checkers may add their own; `error` is refused because only the service says it.
 */
export function parseResultJson(bytes: Uint8Array): ParseResult<ResultFile> {
  const decoded = decodeJson(bytes);
  if (!decoded.ok) return { ok: false, reason: `result.json is not JSON: ${decoded.reason}` };
  const value = decoded.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, reason: "result.json is not a JSON object" };
  }
  const record = value as Record<string, unknown>;
  const result = record.result;
  if (typeof result !== "string" || !Object.hasOwn(CheckerResult, result)) {
    return {
      ok: false,
      reason: `result.json's "result" is ${JSON.stringify(result) ?? "missing"}; it must be verified, refuted or inconclusive`,
    };
  }
  const score = record.score;
  if (score !== undefined && score !== null && (typeof score !== "number" || !Number.isFinite(score))) {
    return {
      ok: false,
      reason: `result.json's "score" must be a finite number, not ${JSON.stringify(score)}`,
    };
  }
  const summary = record.summary;
  if (summary !== undefined && summary !== null && typeof summary !== "string") {
    return { ok: false, reason: `result.json's "summary" must be a string` };
  }
  return {
    ok: true,
    value: {
      result: result as CheckerResult,
      score: typeof score === "number" ? score : null,
      summary: typeof summary === "string" ? summary.slice(0, MAX_SUMMARY_CHARS) : null,
    },
  };
}
