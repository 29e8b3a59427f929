import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { BlobRefusedError } from "../../../src/core/blobs/blob-refused-error.ts";
import type { BlobStore } from "../../../src/core/blobs/blob-store.ts";
import { meteredBlobStore } from "../../../src/core/blobs/metered-blob-store.ts";
import { blobStoreErrors, setMetricsRecording } from "../../../src/core/metrics/metrics.ts";

const errorsOf = async (operation: string): Promise<number> =>
  (await blobStoreErrors.get()).values.find((value) => value.labels.operation === operation)?.value ?? 0;

describe("meteredBlobStore", () => {
  it("counts a store's failures by operation and passes them on, but not refusals of the content", async () => {
    const failing: BlobStore = {
      put: async () => {
        throw new BlobRefusedError({ code: "blob_too_large", max_bytes: 1, received_bytes: 2 });
      },
      get: async () => {
        throw Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" });
      },
      has: async () => true,
      stat: async () => null,
      delete: async () => false,
    };
    setMetricsRecording(true);
    const store = meteredBlobStore(failing);
    const [gets, puts] = [await errorsOf("get"), await errorsOf("put")];

    await expect(store.get("sha256:00")).rejects.toThrow(/EIO/);
    await expect(store.put(Readable.from([Buffer.from("ab")]))).rejects.toBeInstanceOf(BlobRefusedError);
    expect(await store.has("sha256:00")).toBe(true);

    expect(await errorsOf("get")).toBe(gets + 1);
    expect(await errorsOf("put")).toBe(puts);
  });
});
