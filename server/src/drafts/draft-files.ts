import { buffer } from "node:stream/consumers";
import {
  canonicalJson,
  type FileTree,
  memoryTree,
  SERVER_ARCHIVE_LIMITS,
  sha256,
  TreeError,
  zipTree,
} from "@svc/app";
import type { BlobStore } from "../core/blobs/blob-store.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { DraftFile } from "./work-draft.ts";

/** One file as save_work_draft takes it: text or base64 bytes. */
export interface DraftFileInput {
  path: string;
  content_text?: string | undefined;
  content_base64?: string | undefined;
}

/** The most bytes a save carries inline (all files together): larger packages go through an upload. */
export const MAX_INLINE_DRAFT_BYTES = 16 * 1024 * 1024;

/**
 * Checks the files a save carries (paths as a package tree requires them, each path once, one of
 * content_text or content_base64, the inline ceiling) and stores their bytes as blobs. Returns the
 * draft's file list sorted by path. Every refusal names the field and the fix.
 */
export async function storeDraftFiles(
  blobs: BlobStore,
  inputs: readonly DraftFileInput[],
): Promise<DraftFile[]> {
  if (inputs.length > SERVER_ARCHIVE_LIMITS.maxFiles) {
    throw new ServiceError(
      "too_large",
      `a draft holds at most ${SERVER_ARCHIVE_LIMITS.maxFiles} files, not ${inputs.length}`,
      { field: "files" },
    );
  }
  const contents: Record<string, Uint8Array> = {};
  let total = 0;
  inputs.forEach((file, index) => {
    const field = `files.${index}`;
    if ((file.content_text === undefined) === (file.content_base64 === undefined)) {
      throw new ServiceError(
        "invalid_input",
        `${field}: give exactly one of content_text or content_base64`,
        {
          field,
        },
      );
    }
    if (file.content_base64 !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(file.content_base64)) {
      throw new ServiceError(
        "invalid_input",
        `${field}.content_base64 is not base64 (RFC 4648, with padding)`,
        {
          field: `${field}.content_base64`,
        },
      );
    }
    const bytes =
      file.content_text !== undefined
        ? new TextEncoder().encode(file.content_text)
        : new Uint8Array(Buffer.from(file.content_base64!, "base64"));
    if (file.path in contents) {
      throw new ServiceError(
        "invalid_input",
        `${field}.path "${file.path}" is given twice: give each file once`,
        {
          field: `${field}.path`,
        },
      );
    }
    total += bytes.byteLength;
    contents[file.path] = bytes;
  });
  if (total > MAX_INLINE_DRAFT_BYTES) {
    throw new ServiceError(
      "too_large",
      `the files add up to ${total} bytes, over the ${MAX_INLINE_DRAFT_BYTES} a save carries inline: upload the package (request_authoring_upload) and save with its upload_id`,
      { field: "files", max_bytes: MAX_INLINE_DRAFT_BYTES },
    );
  }
  let tree: FileTree;
  try {
    tree = memoryTree(contents);
  } catch (error) {
    if (!(error instanceof TreeError)) throw error;
    const index = inputs.findIndex((f) => f.path === error.entry);
    throw new ServiceError(
      "invalid_input",
      `files.${index}.path: ${error.message}; use a relative path like "problems/a/problem.json"`,
      {
        field: `files.${index}.path`,
      },
    );
  }
  return await storeTree(blobs, tree);
}

/** Stores every file of a tree (an unpacked upload, or checked inline files) as blobs. */
export async function storeTree(blobs: BlobStore, tree: FileTree): Promise<DraftFile[]> {
  const files: DraftFile[] = [];
  for (const path of tree.paths()) {
    const stored = await blobs.put(await tree.read(path));
    files.push({ path, content_hash: stored.content_hash, size_bytes: stored.size_bytes });
  }
  return files;
}

/** The hash of a draft's content: its file list (paths, hashes, sizes) as canonical JSON. */
export function draftContentHash(files: readonly DraftFile[]): string {
  return sha256(canonicalJson(files));
}

/** The bytes of one draft file from the blob store; its absence is the service's fault. */
export async function readDraftBytes(blobs: BlobStore, file: DraftFile): Promise<Uint8Array> {
  const stream = await blobs.get(file.content_hash);
  if (!stream) throw new Error(`draft file blob ${file.content_hash} is missing from the blob store`);
  return new Uint8Array(await buffer(stream));
}

/**
 * Bytes `[start, end)` of one draft file, streamed from the blob store so that only the slice is
 * held in memory, whatever the file's size.
 */
export async function readDraftSlice(
  blobs: BlobStore,
  file: DraftFile,
  start: number,
  end: number,
): Promise<Uint8Array> {
  const stream = await blobs.get(file.content_hash);
  if (!stream) throw new Error(`draft file blob ${file.content_hash} is missing from the blob store`);
  const parts: Uint8Array[] = [];
  let position = 0;
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    const from = Math.max(start - position, 0);
    const to = Math.min(end - position, chunk.byteLength);
    if (to > from) parts.push(chunk.subarray(from, to));
    position += chunk.byteLength;
    if (position >= end) break;
  }
  if ("destroy" in stream && typeof stream.destroy === "function") stream.destroy();
  return new Uint8Array(Buffer.concat(parts));
}

/** The ZIP archive of a draft's files, exactly as `svc upload` would send the same package. */
export async function zipDraft(blobs: BlobStore, files: readonly DraftFile[]): Promise<Buffer> {
  const contents: Record<string, Uint8Array> = {};
  for (const file of files) contents[file.path] = await readDraftBytes(blobs, file);
  return await zipTree(memoryTree(contents));
}
