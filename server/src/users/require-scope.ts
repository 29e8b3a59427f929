import type { Scope } from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Principal } from "./principal.ts";

/** Throws forbidden unless the token was issued with `scope` (contribute tokens also hold read). */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw new ServiceError(
      "forbidden",
      `this token lacks the ${scope} scope: issue one with --scope ${scope}`,
      {
        scope,
      },
    );
  }
}
