import { safeTextFromBytes } from "./safe-text.ts";

/** How much of a checker's stdout/stderr a conformance failure carries: its last 4 KiB. */
export const LOG_TAIL_BYTES = 4096;

/**
 * The last `max` bytes of a stage log (stdout then stderr, so the tail holds the traceback a
 * checker wrote last), as safe text: a cut inside a UTF-8 character drops its stray bytes, and
 * anything that is not text is escaped (safe-text.ts). "" for a run that wrote nothing.
 */
export function logTail(log: { bytes: Uint8Array } | null | undefined, max = LOG_TAIL_BYTES): string {
  if (!log || log.bytes.length === 0) return "";
  let start = Math.max(0, log.bytes.length - max);
  // A continuation byte (top bits 10) at the cut belongs to a character that started before it.
  for (let i = 0; i < 3 && start > 0 && start < log.bytes.length && (log.bytes[start]! & 0xc0) === 0x80; i++)
    start++;
  return safeTextFromBytes(log.bytes.subarray(start));
}
