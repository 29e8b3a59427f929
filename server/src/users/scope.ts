import { Scope } from "@svc/schemas";

/** Whether a string names a scope. */
export function isScope(value: string): value is Scope {
  return Object.hasOwn(Scope, value);
}
