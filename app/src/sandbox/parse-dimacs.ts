/** A CNF formula: clauses of non-zero literals over variables 1..variables. */
export interface Cnf {
  variables: number;
  clauses: number[][];
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string };

const INTEGER = /^[+-]?[0-9]+$/;

/**
 * Parses DIMACS CNF (the `svc-builtin/sat-assignment-check:1` instance): `c` comment lines, one
 * `p cnf <variables> <clauses>` header before any clause, then clauses of signed integers each
 * ended by `0`, free to span lines. A `%` line ends the formula (SATLIB files close with one).
 * Strict where a lenient reading could change the verdict: a literal beyond the header's variable
 * count, a clause count that differs from the header, or a missing header is a parse failure.
 */
export function parseDimacs(text: string): ParseResult<Cnf> {
  let header: { variables: number; clauses: number } | null = null;
  const clauses: number[][] = [];
  let current: number[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    const at = `line ${index + 1}`;
    if (line === "" || line.startsWith("c")) continue;
    if (line.startsWith("%")) break;
    if (line.startsWith("p")) {
      if (header !== null) return { ok: false, reason: `${at}: a second "p cnf" header` };
      const parts = line.split(/\s+/);
      if (parts.length !== 4 || parts[0] !== "p" || parts[1] !== "cnf") {
        return { ok: false, reason: `${at}: the header must be "p cnf <variables> <clauses>"` };
      }
      const variables = naturalNumber(parts[2]!);
      const count = naturalNumber(parts[3]!);
      if (variables === null || count === null) {
        return { ok: false, reason: `${at}: the header's counts must be non-negative integers` };
      }
      header = { variables, clauses: count };
      continue;
    }
    if (header === null) return { ok: false, reason: `${at}: a clause before the "p cnf" header` };
    for (const token of line.split(/\s+/)) {
      const literal = integer(token);
      if (literal === null) return { ok: false, reason: `${at}: "${clip(token)}" is not an integer literal` };
      if (literal === 0) {
        clauses.push(current);
        current = [];
        continue;
      }
      if (Math.abs(literal) > header.variables) {
        return {
          ok: false,
          reason: `${at}: literal ${literal} is beyond the header's ${header.variables} variables`,
        };
      }
      current.push(literal);
    }
  }
  if (header === null) return { ok: false, reason: 'no "p cnf <variables> <clauses>" header' };
  // The last clause may end at the end of the file without its 0.
  if (current.length > 0) clauses.push(current);
  if (clauses.length !== header.clauses) {
    return {
      ok: false,
      reason: `the header declares ${header.clauses} clauses but the file has ${clauses.length}`,
    };
  }
  return { ok: true, value: { variables: header.variables, clauses } };
}

/** A decimal integer token within the safe integer range, or null. */
export function integer(token: string): number | null {
  if (!INTEGER.test(token)) return null;
  const value = Number(token);
  return Number.isSafeInteger(value) ? value : null;
}

function naturalNumber(token: string): number | null {
  const value = integer(token);
  return value !== null && value >= 0 && !token.startsWith("-") && !token.startsWith("+") ? value : null;
}

/** Quotes at most 40 characters of hostile input in a message. */
export function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}
