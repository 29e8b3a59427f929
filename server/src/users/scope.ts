/** What a token may be used for (spec 5.2). `contribute` implies `read`. */
export const Scope = {
  /** Every read tool and resource. */
  read: "read",
  /** Doing work and reviewing as the connected user. */
  contribute: "contribute",
} as const;
export type Scope = (typeof Scope)[keyof typeof Scope];

/** Whether a string names a scope. */
export function isScope(value: string): value is Scope {
  return Object.hasOwn(Scope, value);
}
