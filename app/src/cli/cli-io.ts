import { exitOnClosedPipe } from "./exit-on-closed-pipe.ts";

/** Where a command writes, so tests run commands in process and read what they printed. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Colour only on a terminal. */
  color: boolean;
  /** Progress bars only when stderr is a terminal. */
  progress?: boolean;
}

export function processIo(): CliIo {
  exitOnClosedPipe(process.stdout);
  exitOnClosedPipe(process.stderr);
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
    progress: Boolean(process.stderr.isTTY),
  };
}

/** Bad invocation: exit code 2 with the message. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Exit code 3: the upload is valid (svc upload) or published (svc draft) but a checker in the plan
 * failed its own conformance fixtures, so it will not become its stage's current implementation.
 */
export const CONFORMANCE_FAILED = 3;
