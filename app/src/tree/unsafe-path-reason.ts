import { hasBidiControl } from "./bidi-control.ts";

/**
 * Why a package path is unsafe, as a phrase that completes `path "x" ...`, or undefined for a
 * plain relative path. Every tree source applies this one rule, so nothing a tree lists can
 * escape, or mean two things in, a directory it is later written into.
 */
export function unsafePathReason(path: string): string | undefined {
  if (path === "") return "is empty";
  if (path.startsWith("/") || /^[a-zA-Z]:/.test(path)) {
    return "is an absolute path; package paths are relative to the package root";
  }
  if (path.includes("\\")) return 'contains a backslash; package paths separate folders with "/"';
  // Control characters and unpaired surrogates have no faithful UTF-8 file name.
  if (/[\p{Cc}\p{Cs}]/u.test(path)) return "contains a control character or invalid Unicode";
  if (hasBidiControl(path)) return "contains a bidirectional formatting character (it disguises the name)";
  const segments = path.split("/");
  if (segments.includes("..")) return "escapes the package root";
  if (segments.includes(".")) return 'has a "." segment';
  if (segments.includes("")) return "has an empty segment";
  return undefined;
}
