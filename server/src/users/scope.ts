import { Scope } from "@svc/schemas";

export { Scope };

/** Whether a string names a scope. */
export function isScope(value: string): value is Scope {
  return Object.hasOwn(Scope, value);
}
