import type { BlobStore } from "../core/blobs/blob-store.ts";
import type { BundleMaterial } from "../core/services/hosted-reviewer.ts";

/** Text files of at most this many bytes are inlined whole (spec 8: 16 KiB). */
export const INLINE_TEXT_BYTES = 16 * 1024;
/** A larger text file shows this many characters (spec 8). */
export const PREVIEW_CHARS = 400;
/** Bytes read for a preview: enough for PREVIEW_CHARS of any UTF-8 text. */
const PREVIEW_BYTES = PREVIEW_CHARS * 4;

/** A material's identity: everything but its content. */
export type MaterialMeta = Omit<BundleMaterial, "text" | "preview" | "truncated" | "omitted_reason">;

const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-python",
  "application/x-sh",
  "application/yaml",
  "application/toml",
]);

/** Whether a media type names text (the bytes must still decode as UTF-8). */
export function isTextMediaType(mediaType: string): boolean {
  const type = mediaType.split(";")[0]!.trim().toLowerCase();
  return type.startsWith("text/") || type.endsWith("+json") || type.endsWith("+xml") || TEXT_TYPES.has(type);
}

/**
 * A material from its metadata and its first bytes (`head`: the whole file when it is at most
 * INLINE_TEXT_BYTES, else at least PREVIEW_BYTES of it). Text that decodes as UTF-8 is inlined
 * when small and previewed otherwise; anything else is listed by reference only. Pure.
 */
export function describeMaterial(meta: MaterialMeta, head: Uint8Array): BundleMaterial {
  const text = isTextMediaType(meta.media_type) ? decodeUtf8(head, meta.size_bytes > head.byteLength) : null;
  if (text === null) {
    return {
      ...meta,
      truncated: true,
      omitted_reason: `not inlined: ${meta.media_type} is not UTF-8 text; read it through resource_uri`,
    };
  }
  if (meta.size_bytes <= INLINE_TEXT_BYTES) return { ...meta, text };
  return {
    ...meta,
    preview: Array.from(text).slice(0, PREVIEW_CHARS).join(""),
    truncated: true,
    omitted_reason: `larger than ${INLINE_TEXT_BYTES} bytes (${meta.size_bytes}): only the first ${PREVIEW_CHARS} characters are shown; read the whole file through resource_uri`,
  };
}

/** A material for text the service itself holds (evidence, prior outputs). */
export function textMaterial(meta: Omit<MaterialMeta, "size_bytes">, text: string): BundleMaterial {
  const bytes = Buffer.from(text, "utf8");
  return describeMaterial({ ...meta, size_bytes: bytes.byteLength }, bytes);
}

/** A material for stored bytes, reading only as much of the blob as the bundle shows. */
export async function blobMaterial(
  blobs: BlobStore,
  meta: MaterialMeta & { content_hash: string },
): Promise<BundleMaterial> {
  const limit = meta.size_bytes <= INLINE_TEXT_BYTES ? INLINE_TEXT_BYTES : PREVIEW_BYTES;
  if (!isTextMediaType(meta.media_type)) return describeMaterial(meta, new Uint8Array());
  const stream = await blobs.get(meta.content_hash);
  if (!stream)
    return {
      ...meta,
      truncated: true,
      omitted_reason: "the stored bytes are missing; report this to the operator",
    };
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    read += (chunk as Buffer).byteLength;
    if (read >= limit) break;
  }
  stream.destroy();
  return describeMaterial(meta, Buffer.concat(chunks).subarray(0, limit));
}

/** UTF-8 text without NUL, or null; `partial` allows a character cut at the end. */
function decodeUtf8(bytes: Uint8Array, partial: boolean): string | null {
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes, {
      stream: partial,
    });
    return text.includes("\u0000") ? null : text;
  } catch {
    return null;
  }
}
