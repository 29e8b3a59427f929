import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { threadId } from "node:worker_threads";
// The authoring core alone: a thread starts without the modules of the rest of @svc/app.
import {
  type LintReport,
  lintPackage,
  openZipTree,
  SERVER_ARCHIVE_LIMITS,
  TreeError,
} from "@svc/app/authoring-core";
import { move, transferableSymbol, valueSymbol } from "piscina";

/** The validation threads' nice value (0 is normal, 19 the lowest priority). */
const VALIDATION_NICE = 10;

// On Linux a nice value belongs to a thread: this one yields the CPU to the request thread (and
// to PostgreSQL) whenever both want it, so a burst of validations slows itself, not /healthz.
// Elsewhere setpriority would renice the whole process, so it is left alone there.
// The thread is named by its own id (/proc/thread-self is "<pid>/task/<tid>"): pid 0 would
// renice the process's main thread too.
if (process.platform === "linux") {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    if (Number.isInteger(tid) && tid !== process.pid) setPriority(tid, VALIDATION_NICE);
  } catch {
    // A container may forbid it; validation still runs, at normal priority.
  }
}

/** What the pool's thread sends back for one archive; `thread` is its id (never 0, the main thread's). */
export type ArchiveValidation = { thread: number } & (
  | { kind: "refused"; code: TreeError["code"]; message: string; entry: string | undefined }
  | { kind: "linted"; report: LintReport; files: [string, Uint8Array][] }
  | { kind: "unpacked"; files: [string, Uint8Array][] }
);

/**
 * The work of validation-pool.ts's threads: unpack an uploaded archive under the server's
 * ceilings and lint and plan it, exactly what validation did inline (the same functions, so the
 * same plan_hash). When the plan is clean the package's files go back to the caller, moved
 * (never copied) into its thread, for the reference checks and conformance fixtures.
 */
export default async function validateArchive(
  task:
    | {
        archive: Uint8Array;
        /** The clock lint checks dates against; null: unpack only (publication of a validated upload). */
        now: Date | null;
      }
    | { warm: true },
): Promise<unknown> {
  // ValidationPool.warm: starting this thread (loading this module) was the work.
  if ("warm" in task) return { thread: threadId, kind: "warm" };
  let tree: Awaited<ReturnType<typeof openZipTree>>;
  try {
    tree = await openZipTree(task.archive, SERVER_ARCHIVE_LIMITS);
  } catch (error) {
    if (!(error instanceof TreeError)) throw error;
    return {
      thread: threadId,
      kind: "refused",
      code: error.code,
      message: error.message,
      entry: error.entry,
    };
  }
  const report = task.now === null ? null : await lintPackage(tree, { now: task.now });
  const files: [string, Uint8Array][] = [];
  if (report === null || report.plan !== null) {
    for (const path of tree.paths()) files.push([path, ownBuffer(await tree.read(path))]);
  }
  const result: ArchiveValidation =
    report === null
      ? { thread: threadId, kind: "unpacked", files }
      : { thread: threadId, kind: "linted", report, files };
  return move({
    get [transferableSymbol]() {
      return files.map(([, bytes]) => bytes.buffer);
    },
    get [valueSymbol]() {
      return result;
    },
  } as never);
}

/**
 * Bytes that own their whole ArrayBuffer, so moving it to another thread moves nothing else (Node
 * pools small buffers); a copy otherwise. The sender's array is detached by the move.
 */
export function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : new Uint8Array(bytes);
}
