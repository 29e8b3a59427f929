import { type Logger, pino } from "pino";

/**
 * A JSON logger (pino) writing synchronously to a file descriptor, so nothing is lost when the
 * process exits. The server logs to stdout; operator commands log to stderr, keeping their
 * stdout for the one JSON result.
 */
export function createLogger(options: { level: string; fd: 1 | 2 }): Logger {
  return pino(
    { level: options.level, base: { service: "svc" } },
    pino.destination({ dest: options.fd, sync: true }),
  );
}
