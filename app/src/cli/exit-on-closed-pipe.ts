const watched = new WeakSet<NodeJS.WritableStream>();

/**
 * A reader that went away (`svc lint --json | head`) closes the pipe: the next write fails with
 * EPIPE, which Node reports as an unhandled 'error' event and a stack trace. The CLI instead ends
 * quietly with exit 0, as a command whose reader has all it wanted; a publish stopped this way
 * resumes from its state file. Any other stream error is still thrown.
 */
export function exitOnClosedPipe(
  stream: NodeJS.WritableStream,
  exit: (code: number) => void = process.exit,
): void {
  if (watched.has(stream)) return;
  watched.add(stream);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    exit(0);
  });
}
