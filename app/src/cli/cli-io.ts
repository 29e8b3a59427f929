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
