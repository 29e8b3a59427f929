/**
 * Collects a stream's bytes up to a ceiling and keeps draining past it (a writer blocked on a full
 * pipe would otherwise hang the run); `truncated` says bytes were dropped.
 */
export class BoundedSink {
  readonly ceiling: number;
  #chunks: Buffer[] = [];
  #kept = 0;
  #seen = 0;

  constructor(ceiling: number) {
    this.ceiling = ceiling;
  }

  push(chunk: Buffer): void {
    this.#seen += chunk.length;
    const room = this.ceiling - this.#kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.#chunks.push(part);
    this.#kept += part.length;
  }

  get truncated(): boolean {
    return this.#seen > this.#kept;
  }

  get seen(): number {
    return this.#seen;
  }

  bytes(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}

/** The capture ceiling of a stage log (stdout and stderr together). */
export const LOG_CEILING = 1_048_576;

/**
 * stdout then stderr, cut so the pair fits `ceiling`: when both overflow, stderr (where tracebacks
 * go) keeps at least half, so a flood on stdout cannot hide why a checker failed.
 */
export function joinLog(
  stdout: BoundedSink,
  stderr: BoundedSink,
  ceiling = LOG_CEILING,
): { bytes: Uint8Array; truncated: boolean } {
  const out = stdout.bytes();
  const err = stderr.bytes();
  let truncated = stdout.truncated || stderr.truncated;
  if (out.length + err.length <= ceiling) return { bytes: Buffer.concat([out, err]), truncated };
  truncated = true;
  const errKept = Math.min(err.length, Math.max(ceiling - out.length, Math.floor(ceiling / 2)));
  const outKept = ceiling - errKept;
  return { bytes: Buffer.concat([out.subarray(0, outKept), err.subarray(0, errKept)]), truncated };
}
