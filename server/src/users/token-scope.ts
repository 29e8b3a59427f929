import { Capability, Scope } from "@svc/schemas";
import { isCapability } from "./capability.ts";
import { isScope } from "./scope.ts";

/** What a token carries: scopes and capabilities, each in catalogue order. */
export interface TokenScope {
  scopes: Scope[];
  capabilities: Capability[];
}

/**
 * A token's scope (spec 5.3): the requested scope intersected with read/contribute, plus the
 * capabilities its user holds at grant time, so a token never carries a capability its user
 * lacks. A request that names capabilities narrows them to those named; one that names none
 * carries all the user holds. `contribute` implies `read`. Names outside both catalogues are
 * dropped: the caller validates requests it wants to refuse.
 */
export function tokenScope(requested: readonly string[], held: readonly Capability[]): TokenScope {
  const scopes = new Set(requested.filter(isScope));
  if (scopes.has(Scope.contribute)) scopes.add(Scope.read);
  const named = new Set(requested.filter(isCapability));
  const carried = held.filter((c) => named.size === 0 || named.has(c));
  return {
    scopes: Object.values(Scope).filter((s) => scopes.has(s)),
    capabilities: Object.values(Capability).filter((c) => carried.includes(c)),
  };
}
