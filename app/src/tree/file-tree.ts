import type { TreeErrorCode } from "@svc/schemas";
import { escapedText } from "./bidi-control.ts";
/**
 * FileTree: one read-only view of a package, whatever it came from (a directory, a ZIP archive,
 * later a Git commit). Lint and plan are functions of a FileTree, so identical files give an
 * identical plan_hash wherever they are read.
 *
 * Paths are relative to the package root, '/'-separated, never start with '/', never contain
 * '.' or '..' segments, and are listed in byte order of their UTF-8 encoding. Anything under
 * `.svc/` at the root (local CLI state) or under a `.git` segment at any depth is never listed.
 */
export interface FileTree {
  /** Every file in the tree, sorted by byte order of the path. Directories are implied. */
  paths(): readonly string[];
  /** Size in bytes of a listed file, or undefined when it is not in the tree. */
  size(path: string): number | undefined;
  /** The bytes of a listed file; rejects with a TreeError `not_found` for anything else. */
  read(path: string): Promise<Uint8Array>;
}

export class TreeError extends Error {
  readonly code: TreeErrorCode;
  /** The offending entry, when there is one. */
  readonly entry: string | undefined;
  /** A hostile entry name is kept and quoted escaped (escapedText): safe to show and to store. */
  constructor(code: TreeErrorCode, message: string, entry?: string) {
    super(escapedText(message));
    this.name = "TreeError";
    this.code = code;
    this.entry = entry === undefined ? undefined : escapedText(entry);
  }
}

/** The server's archive ceilings (spec section 8). */
export const SERVER_ARCHIVE_LIMITS = {
  maxFiles: 5000,
  maxZippedBytes: 64 * 1024 * 1024,
  maxUnpackedBytes: 256 * 1024 * 1024,
} as const;

export interface ArchiveLimits {
  maxFiles: number;
  maxZippedBytes: number;
  maxUnpackedBytes: number;
}

/**
 * True for paths no tree lists: the CLI's state directory `.svc/` at the root, and Git's
 * metadata (`.git` at any depth, a directory or a submodule's pointer file). Every source applies
 * the same rule, so a directory and a `zip -r` of it lint the same.
 */
export function isIgnoredPath(path: string): boolean {
  return path === ".svc" || path.startsWith(".svc/") || path.split("/").includes(".git");
}
