import { clip, integer, type ParseResult } from "./parse-dimacs.ts";

/**
 * Parses a SAT assignment (the artifact of `svc-builtin/sat-assignment-check:1`): whitespace-
 * separated signed integers, each line optionally opening with `v` (the SAT competition's value
 * lines), optionally ended by one `0` as the very last token. Returns the literals in order; a
 * `0` anywhere else, or any other token, is a parse failure.
 */
export function parseAssignment(text: string): ParseResult<number[]> {
  const literals: number[] = [];
  let terminated = false;
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    let line = raw.trim();
    if (line === "v" || /^v\s/.test(line)) line = line.slice(1).trim();
    if (line === "") continue;
    for (const token of line.split(/\s+/)) {
      const at = `line ${index + 1}`;
      if (terminated) return { ok: false, reason: `${at}: "${clip(token)}" after the terminating 0` };
      const literal = integer(token);
      if (literal === null) return { ok: false, reason: `${at}: "${clip(token)}" is not a signed integer` };
      if (literal === 0) terminated = true;
      else literals.push(literal);
    }
  }
  return { ok: true, value: literals };
}
