import { unlink } from "node:fs/promises";
import { createRequire } from "node:module";
import S3rver from "s3rver";

/**
 * The local S3 server as a process of its own (started by local-s3-server.ts). Prints
 * `{"port": N}` once listening; exits on SIGTERM.
 *
 * s3rver keeps each object as files in folders named by its key, and after a delete it removes the
 * folders left empty, racing with a concurrent put that is about to write into one (that put fails
 * with ENOENT). Real S3 has no folders, so this server keeps them: its delete removes only the
 * object's files. Any stray error of the server is logged here, not thrown into the test runner.
 */
const [directory, bucket] = process.argv.slice(2);
process.on("uncaughtException", (error) => {
  process.stderr.write(`s3rver: ${error.message}\n`);
});
type FilesystemStore = {
  prototype: {
    getResourcePath(bucket: string, key: string, resource: string): string;
    deleteObject(bucket: string, key: string): Promise<void>;
  };
};
const store = createRequire(import.meta.url)("s3rver/lib/stores/filesystem.js") as FilesystemStore;
store.prototype.deleteObject = async function deleteObject(bucket, key) {
  for (const resource of ["object", "object.md5", "metadata.json"]) {
    await unlink(this.getResourcePath(bucket, key, resource)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
};

const server = new S3rver({
  address: "127.0.0.1",
  port: 0,
  silent: true,
  directory: directory!,
  configureBuckets: [{ name: bucket! }],
});
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.once("SIGTERM", () => {
  server.close().then(() => process.exit(0));
});
