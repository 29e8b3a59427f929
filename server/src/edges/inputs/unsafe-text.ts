import { ServiceError } from "../../core/errors/service-error.ts";

/**
 * The one input guard for text (issue "Hardening"): no string a caller sends, nor any object key,
 * may hold NUL (PostgreSQL's text cannot store it) or a lone UTF-16 surrogate (it has no UTF-8
 * form, so it would be stored as U+FFFD, silently changing what the caller sent). Every MCP tool
 * call and every HTTP request's params, query and JSON body pass through here before validation.
 */

/** How deep a value is walked; the JSON body parser refuses deeper bodies before this runs. */
const MAX_WALK_DEPTH = 256;

/** Where a value breaks the rule and why: `field` is a dotted path (`artifacts.0.name`). */
export interface UnsafeText {
  field: string;
  reason: string;
}

/** Why `text` cannot be stored as sent, or null when it can. */
export function unsafeTextReason(text: string): string | null {
  if (text.includes("\u0000")) return "must not hold a NUL character (U+0000): remove it";
  if (!text.isWellFormed()) {
    return "must be well-formed Unicode: it holds a lone UTF-16 surrogate, which UTF-8 cannot encode";
  }
  return null;
}

/** The first string or key in `value` that breaks the rule, walking objects and arrays. */
export function findUnsafeText(value: unknown, prefix = ""): UnsafeText | null {
  const stack: { value: unknown; field: string; depth: number }[] = [{ value, field: prefix, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, field, depth } = stack.pop()!;
    if (typeof current === "string") {
      const reason = unsafeTextReason(current);
      if (reason) return { field, reason };
      continue;
    }
    if (current === null || typeof current !== "object" || depth >= MAX_WALK_DEPTH) continue;
    const entries = Array.isArray(current) ? current.entries() : Object.entries(current);
    for (const [key, child] of entries) {
      const childField = field ? `${field}.${key}` : String(key);
      if (typeof key === "string") {
        const reason = unsafeTextReason(key);
        if (reason) return { field: childField, reason: `(a field name) ${reason}` };
      }
      stack.push({ value: child, field: childField, depth: depth + 1 });
    }
  }
  return null;
}

/** Throws `invalid_input` naming the field when `value` holds unsafe text; `where` names the call. */
export function refuseUnsafeText(value: unknown, where: string, prefix = ""): void {
  const unsafe = findUnsafeText(value, prefix);
  if (!unsafe) return;
  const at = unsafe.field ? `"${unsafe.field}"` : "the value";
  throw new ServiceError("invalid_input", `${where}: ${at} ${unsafe.reason}`, { field: unsafe.field });
}
