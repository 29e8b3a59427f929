import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { BlobMeter, chunksOf } from "./blob-meter.ts";
import type { BlobSource, BlobStat, BlobStore, PutResult } from "./blob-store.ts";
import { checkPutOptions, type PutLimits } from "./check-put-options.ts";
import { assertContentHash } from "./content-hash.ts";

/** Where the S3-compatible store keeps blobs (docs/deployment.md, "Object storage"). */
export interface S3BlobStoreSettings {
  bucket: string;
  /** Prepended to every key, e.g. `svc/`; empty for the bucket's root. */
  prefix: string;
  /** A non-AWS endpoint (MinIO, R2, a local test server); unset: AWS itself. */
  endpoint: string | undefined;
  region: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`), which most non-AWS servers need. */
  forcePathStyle: boolean;
}

/** CopyObject's limit: a larger blob would need a multipart copy, which nothing here needs yet. */
const MAX_COPY_BYTES = 5 * 1024 ** 3;

/**
 * The blob store on S3-compatible object storage. Blobs live at `<prefix>sha256/<aa>/<bb>/<hex>`,
 * the local store's layout. A put streams the source to a temporary key `<prefix>tmp/<uuid>`
 * (multipart for large bodies, so nothing is held whole in memory) while the shared BlobMeter
 * hashes, counts and refuses; a refused or failed put aborts that upload. A whole put is then
 * copied server-side to its content-addressed key, unless that key already exists (putting bytes
 * already stored is a no-op), and the temporary key is deleted. A crash between the two can leave
 * a `tmp/` key that nothing reads: a bucket lifecycle rule expiring `tmp/` after a day removes it.
 *
 * Credentials come from the AWS SDK's usual chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
 * AWS_PROFILE, a container or instance role). Resolves once the bucket answers, so a wrong
 * setting stops the start with a message rather than failing the first upload.
 */
export async function openS3BlobStore(
  settings: S3BlobStoreSettings,
  client: S3Client = s3Client(settings),
): Promise<BlobStore> {
  const { bucket, prefix } = settings;
  const keyOf = (hash: string): string => {
    assertContentHash(hash);
    const hex = hash.slice("sha256:".length);
    return `${prefix}sha256/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}`;
  };

  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch (error) {
    throw new Error(
      `the object store bucket ${bucket} at ${settings.endpoint ?? "AWS S3"} cannot be used (${describe(error)}): check SVC_S3_BUCKET, SVC_S3_ENDPOINT, SVC_S3_REGION and the AWS credentials`,
      { cause: error },
    );
  }

  async function head(key: string): Promise<BlobStat | null> {
    try {
      const found = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { size_bytes: found.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async function uploadTemp(source: BlobSource, key: string, limits: PutLimits): Promise<PutResult> {
    const meter = new BlobMeter(limits);
    let measured: PutResult | undefined;
    let refusal: unknown;
    async function* metered() {
      try {
        for await (const chunk of chunksOf(source)) yield meter.add(chunk);
        measured = meter.finish();
      } catch (error) {
        refusal = error;
        throw error;
      }
    }
    const upload = new Upload({
      client,
      params: { Bucket: bucket, Key: key, Body: Readable.from(metered(), { objectMode: false }) },
      // Parts of 8 MiB, two at a time: at most about 16 MiB of a put in memory.
      partSize: 8 * 1024 * 1024,
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // The meter's own error (a refusal, bytes that were text, the source failing) is the answer.
      throw refusal ?? error;
    }
    if (!measured) throw refusal ?? new Error("the upload ended before its source did");
    const kept = await head(key);
    if (kept?.size_bytes !== measured.size_bytes) {
      throw new Error(
        `the object store kept ${kept?.size_bytes ?? "no"} bytes of the ${measured.size_bytes} sent to ${key}`,
      );
    }
    return measured;
  }

  return {
    async put(source, options = {}): Promise<PutResult> {
      const limits = checkPutOptions(options);
      const tempKey = `${prefix}tmp/${randomUUID()}`;
      try {
        const blob = await uploadTemp(source, tempKey, limits);
        const finalKey = keyOf(blob.content_hash);
        if ((await head(finalKey)) === null) {
          if (blob.size_bytes > MAX_COPY_BYTES) {
            throw new Error(`a blob of ${blob.size_bytes} bytes is over the object store's 5 GiB copy limit`);
          }
          await client
            .send(
              new CopyObjectCommand({
                Bucket: bucket,
                Key: finalKey,
                CopySource: `${bucket}/${encodeURI(tempKey)}`,
              }),
            )
            .catch(async (error: unknown) => {
              // Concurrent puts of the same bytes copy to the same key; a store that refuses the
              // loser (some S3-compatible servers do) has the winner's identical blob in place.
              if ((await head(finalKey))?.size_bytes !== blob.size_bytes) throw error;
            });
        }
        return blob;
      } finally {
        // Deleting an absent key succeeds, so this also covers a put refused before any upload.
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: tempKey })).catch(() => {});
      }
    },

    async get(hash): Promise<Readable | null> {
      const key = keyOf(hash);
      try {
        const found = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return found.Body as Readable;
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async has(hash): Promise<boolean> {
      return (await head(keyOf(hash))) !== null;
    },

    stat: async (hash) => head(keyOf(hash)),

    async delete(hash): Promise<boolean> {
      const key = keyOf(hash);
      if ((await head(key)) === null) return false;
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      return true;
    },
  };
}

/** An S3 client with bounded connection and idle times, so a stalled store fails a call instead of hanging it. */
export function s3Client(settings: S3BlobStoreSettings): S3Client {
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({ connectionTimeout: 5_000, requestTimeout: 60_000 }),
  });
}

function isNotFound(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return (
    failure?.name === "NoSuchKey" ||
    failure?.name === "NotFound" ||
    failure?.$metadata?.httpStatusCode === 404
  );
}

function describe(error: unknown): string {
  const failure = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = failure?.$metadata?.httpStatusCode;
  return [failure?.name, status ? `HTTP ${status}` : undefined, failure?.message].filter(Boolean).join(", ");
}
