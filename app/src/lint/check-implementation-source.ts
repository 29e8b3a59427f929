import type { ImplementationSource } from "@svc/schemas";
import type { LintContext } from "./lint-context.ts";

/** An exact commit: a full SHA-1 (40) or SHA-256 (64) object name; a branch or tag would move. */
const EXACT_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * One SPDX license identifier (SPDX 2.3 annex D `idstring`, optionally `+`, or a
 * `LicenseRef-`/`DocumentRef-` reference): letters, digits, `.` and `-`. An expression (`MIT OR
 * Apache-2.0`, with spaces or parentheses) is not an id. The list of registered ids changes, so
 * the form is checked, not membership.
 */
const SPDX_ID =
  /^(?:(?:DocumentRef-[A-Za-z0-9.-]+:)?LicenseRef-[A-Za-z0-9.-]+|[A-Za-z0-9][A-Za-z0-9.-]*\+?)$/;

/**
 * The rules of an implementation's `source` (spec 2.2) beyond its schema (which checks the three
 * keys, the lengths and that source_uri is a URI): source_revision is an exact commit and license
 * one SPDX id. Reports each at its JSON Pointer; true when the source is sound.
 */
export function checkImplementationSource(
  ctx: LintContext,
  file: string,
  at: (field: string) => string,
  source: ImplementationSource,
): boolean {
  let ok = true;
  if (source.source_revision !== null && !EXACT_COMMIT.test(source.source_revision)) {
    ok = false;
    ctx.error(
      file,
      at("source_revision"),
      "schema_violation",
      `source_revision "${source.source_revision}" is not an exact commit: give the full 40 (SHA-1) or 64 (SHA-256) lowercase hex digits of the commit, not a branch, tag or short hash`,
    );
  }
  if (source.license !== null && !SPDX_ID.test(source.license)) {
    ok = false;
    ctx.error(
      file,
      at("license"),
      "schema_violation",
      `license "${source.license}" is not one SPDX license id: name it as the SPDX list does (MIT, Apache-2.0, GPL-3.0-or-later, or LicenseRef-<name>), not an expression`,
    );
  }
  if (source.source_uri !== null && !/^https?:\/\//.test(source.source_uri)) {
    ok = false;
    ctx.error(
      file,
      at("source_uri"),
      "schema_violation",
      `source_uri "${source.source_uri}" must be an http(s) address where the source can be read`,
    );
  }
  return ok;
}
