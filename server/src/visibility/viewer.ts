import type { Principal } from "../users/principal.ts";

/**
 * The caller of a read, as visibility rules need them: their user id and whether they are an
 * administrator right now. Built per request from the database, never from token claims, so a
 * revoked administrator loses sight of other owners' private work on their next call.
 */
export interface Viewer {
  userId: string;
  isAdministrator: boolean;
}

/**
 * The viewer a principal stands for. The principal was authenticated for this very request, and
 * `authenticate` reads the user's administrator flag from the users table in the same query that
 * checks the token, so the role is live without a second round trip.
 */
export function viewerOf(principal: Principal): Viewer {
  return { userId: principal.user.id, isAdministrator: principal.user.is_admin };
}
