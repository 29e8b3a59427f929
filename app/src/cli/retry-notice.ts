import type { ServiceCallError } from "../client/service-call-error.ts";

/** The line a retry prints on stderr: what failed, why, and how long the CLI waits. */
export function retryNotice(
  what: string,
  info: { attempt: number; error: ServiceCallError; waitMs: number },
): string {
  return `svc: ${what} failed (attempt ${info.attempt}, ${info.error.code}: ${info.error.message}); retrying in ${(info.waitMs / 1000).toFixed(1)} s\n`;
}
