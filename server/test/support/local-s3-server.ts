import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { S3BlobStoreSettings } from "../../src/core/blobs/open-s3-blob-store.ts";
import { stopChild } from "./bounded-teardown.ts";

/** s3rver's fixed credentials: it checks request signatures against them. */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;

/** A server speaking the S3 protocol on loopback, with one empty bucket, for one test file or bench. */
export interface LocalS3Server {
  endpoint: string;
  bucket: string;
  /** The store settings that reach this bucket, under `prefix`. */
  settings(prefix?: string): S3BlobStoreSettings;
  /** A client signed with s3rver's credentials. */
  client: S3Client;
  /** The environment a child `svc-server` needs to use this bucket. */
  env(prefix?: string): Record<string, string>;
  /** Every key in the bucket under `prefix`, with the prefix removed, sorted. */
  keys(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts s3rver (an S3 protocol server on the file system) in a child process on a free loopback port. */
export async function startLocalS3Server(bucket = "svc-test"): Promise<LocalS3Server> {
  const directory = await mkdtemp(join(tmpdir(), "svc-s3-"));
  const child = spawn(
    process.execPath,
    [new URL("./local-s3-server-main.ts", import.meta.url).pathname, directory, bucket],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", (line) =>
      resolve((JSON.parse(line) as { port: number }).port),
    );
    child.once("exit", (code) => reject(new Error(`the local S3 server exited with ${code}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const settings = (prefix = ""): S3BlobStoreSettings => ({
    bucket,
    prefix,
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
  });
  const client = new S3Client({
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    credentials: LOCAL_S3_CREDENTIALS,
  });
  return {
    endpoint,
    bucket,
    settings,
    client,
    env: (prefix = "") => ({
      SVC_S3_BUCKET: bucket,
      SVC_S3_PREFIX: prefix,
      SVC_S3_ENDPOINT: endpoint,
      SVC_S3_REGION: "us-east-1",
      SVC_S3_FORCE_PATH_STYLE: "1",
      AWS_ACCESS_KEY_ID: LOCAL_S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_S3_CREDENTIALS.secretAccessKey,
    }),
    async keys(prefix = "") {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const item of page.Contents ?? []) keys.push(item.Key!.slice(prefix.length));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async close() {
      client.destroy();
      await stopChild(child);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
