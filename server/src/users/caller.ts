import type { Principal } from "./principal.ts";

/**
 * Who a domain function acts for: the authenticated principal, and the public base address
 * (`SVC_BASE_URL`, else the request's origin, no trailing slash) that links it returns start
 * with. Every edge (an MCP tool call, an `/api` route, a page) builds one per request.
 */
export interface Caller {
  principal: Principal;
  baseUrl: string;
}
