/** A top-level field of a response, or `found: false` when the response has no such field. */
export type FieldRead = { found: true; value: unknown } | { found: false };

/**
 * Reads `field` at the top level of a response. Responses were validated against the rubric,
 * but a reducer must stay total, so anything that is not a plain object simply has no field.
 */
export function readField(response: unknown, field: string): FieldRead {
  if (typeof response !== "object" || response === null || Array.isArray(response)) {
    return { found: false };
  }
  if (!Object.hasOwn(response, field)) return { found: false };
  return { found: true, value: (response as Record<string, unknown>)[field] };
}

/** A value as a step description shows it: its JSON, or a word when it has none. */
export function showValue(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
