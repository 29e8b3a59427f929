import { pointerToLine } from "../tree/pointer-to-line.ts";
import type { PackageCheck } from "./check-package.ts";
import { WARNING_NOTE_CODES } from "./check-verdict.ts";
import { conformanceAnnotations } from "./conformance-annotations.ts";

/** How loud an annotation is, as GitHub's check runs name the levels. */
export const AnnotationLevel = { failure: "failure", warning: "warning", notice: "notice" } as const;
export type AnnotationLevel = (typeof AnnotationLevel)[keyof typeof AnnotationLevel];

/** A finding placed on a file and line of the repository. */
export interface CheckAnnotation {
  /** Path from the repository root, '/'-separated. */
  path: string;
  /** 1-based line. */
  line: number;
  level: AnnotationLevel;
  /** The record's code (`schema_violation`, `conflict`...). */
  title: string;
  message: string;
}

/**
 * The annotations of a check, errors first: each lint error and validation error at its file and
 * the line its JSON Pointer names (line 1 for non-JSON files and whole-file records), each
 * conformance fixture a checker failed at the checker's file (conformanceAnnotations), each
 * conflict and `possible_duplicate` warning at the problem's problem.json, and lint notes as
 * warnings or notices.
 */
export async function checkAnnotations(check: PackageCheck): Promise<CheckAnnotation[]> {
  const texts = new Map<string, string>();
  const lineOf = async (file: string, path: string): Promise<number> => {
    if (path === "" || check.tree === null || check.tree.size(file) === undefined) return 1;
    let text = texts.get(file);
    if (text === undefined) {
      text = new TextDecoder().decode(await check.tree.read(file));
      texts.set(file, text);
    }
    return pointerToLine(text, path);
  };
  const at = (file: string) => (check.dir === "." ? file : `${check.dir}/${file}`);
  const errors: CheckAnnotation[] = [];
  const others: CheckAnnotation[] = [];
  const verdict = check.service?.ok ? check.service.result.validation : null;
  for (const e of [...check.lint.errors, ...(verdict?.errors ?? [])]) {
    const title = "rule" in e && e.rule !== undefined ? `${e.code} (rule ${e.rule})` : e.code;
    errors.push({
      path: at(e.file),
      line: await lineOf(e.file, e.path),
      level: "failure",
      title,
      message: e.message,
    });
  }
  errors.push(...conformanceAnnotations(check, at));
  const problemFile = new Map(
    (check.lint.plan?.problems ?? []).map((p) => [p.slug, `${p.dir === "." ? "" : `${p.dir}/`}problem.json`]),
  );
  const slugLine = async (slug: string) => {
    const file = problemFile.get(slug) ?? "problem.json";
    return { path: at(file), line: await lineOf(file, "/slug") };
  };
  for (const p of verdict?.reconciliation?.problems ?? []) {
    if (p.action !== "conflict") continue;
    errors.push({
      ...(await slugLine(p.slug)),
      level: "failure",
      title: "conflict",
      message: `${p.slug}: ${p.reason ?? "conflict"}`,
    });
  }
  const campaign = verdict?.reconciliation?.campaign;
  if (campaign?.action === "conflict") {
    errors.push({
      path: at("campaign.json"),
      line: await lineOf("campaign.json", "/slug"),
      level: "failure",
      title: "conflict",
      message: `campaign ${campaign.slug}: ${(campaign as { reason?: string }).reason ?? "conflict"}`,
    });
  }
  for (const w of verdict?.reconciliation?.warnings ?? []) {
    others.push({
      ...(await slugLine(w.slug)),
      level: "warning",
      title: w.code,
      message: `${w.slug} looks like ${w.of}`,
    });
  }
  for (const n of check.lint.notes) {
    const level = WARNING_NOTE_CODES.has(n.code) ? "warning" : "notice";
    others.push({
      path: at(n.file),
      line: await lineOf(n.file, n.path),
      level,
      title: n.code,
      message: n.message,
    });
  }
  return [...errors, ...others];
}
