import { UsageError } from "@svc/app";
import { describe, expect, it } from "vitest";
import { serverConfig } from "../../../src/edges/cli/server-config.ts";

describe("serverConfig: the settings of a fleet", () => {
  it("keeps blobs in the data directory and migrates at start unless told otherwise", () => {
    const config = serverConfig({ SVC_DATA_DIR: "/srv/svc" });
    expect(config.s3).toBeUndefined();
    expect(config.migrate).toBe("auto");
    expect(config.schemaWaitMs).toBe(600_000);
    expect(config.workerDeadAfterMs).toBe(90_000);
    expect(config.shutdownDelayMs).toBe(0);
  });

  it("reads an S3-compatible bucket with its prefix, endpoint, region and addressing", () => {
    const config = serverConfig({
      SVC_S3_BUCKET: "svc-blobs",
      SVC_S3_PREFIX: "/prod",
      SVC_S3_ENDPOINT: "https://minio.internal:9000/",
      AWS_REGION: "eu-west-3",
    });
    expect(config.s3).toEqual({
      bucket: "svc-blobs",
      prefix: "prod/",
      endpoint: "https://minio.internal:9000",
      region: "eu-west-3",
      forcePathStyle: true,
    });
    expect(serverConfig({ SVC_S3_BUCKET: "svc-blobs" }).s3).toEqual({
      bucket: "svc-blobs",
      prefix: "",
      endpoint: undefined,
      region: "us-east-1",
      forcePathStyle: false,
    });
    expect(
      serverConfig({ SVC_S3_BUCKET: "b-1", SVC_S3_REGION: "ap-south-1", AWS_REGION: "x" }).s3?.region,
    ).toBe("ap-south-1");
  });

  it.each([
    [{ SVC_S3_BUCKET: "b-1", SVC_BLOB_DIR: "/blobs" }, "SVC_S3_BUCKET and SVC_BLOB_DIR are both set"],
    [{ SVC_S3_ENDPOINT: "https://s3.local" }, "SVC_S3_ENDPOINT is set without SVC_S3_BUCKET"],
    [{ SVC_S3_BUCKET: "Bad_Bucket" }, "SVC_S3_BUCKET=Bad_Bucket is not a bucket name"],
    [{ SVC_S3_BUCKET: "b-1", SVC_S3_ENDPOINT: "s3.local" }, "SVC_S3_ENDPOINT=s3.local is not a URL"],
    [{ SVC_S3_BUCKET: "b-1", SVC_S3_FORCE_PATH_STYLE: "yes" }, "SVC_S3_FORCE_PATH_STYLE=yes must be 1 or 0"],
    [{ SVC_MIGRATE: "later" }, "SVC_MIGRATE=later is not a migration mode"],
    [{ SVC_SCHEMA_WAIT_S: "-1" }, "SVC_SCHEMA_WAIT_S=-1 is not a number of seconds"],
    [{ SVC_WORKER_DEAD_AFTER_S: "1" }, "use a whole number from 3 to 86400"],
    [{ SVC_SHUTDOWN_DELAY_S: "soon" }, "SVC_SHUTDOWN_DELAY_S=soon is not a number of seconds"],
  ])("refuses %j, naming the setting and the fix", (env, message) => {
    expect(() => serverConfig(env)).toThrow(UsageError);
    expect(() => serverConfig(env)).toThrow(message);
  });

  it("reads the migration mode and the fleet's timings", () => {
    const config = serverConfig({
      SVC_MIGRATE: "wait",
      SVC_SCHEMA_WAIT_S: "30",
      SVC_WORKER_DEAD_AFTER_S: "6",
    });
    expect(config).toMatchObject({ migrate: "wait", schemaWaitMs: 30_000, workerDeadAfterMs: 6_000 });
  });

  it("serves metrics only where SVC_METRICS_ADDR says, apart from the public listener", () => {
    expect(serverConfig({}).metrics).toBeUndefined();
    expect(serverConfig({ SVC_METRICS_ADDR: "9464" }).metrics).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(serverConfig({ SVC_METRICS_ADDR: "10.0.0.5:9464" }).metrics).toEqual({
      host: "10.0.0.5",
      port: 9464,
    });
    expect(serverConfig({ SVC_METRICS_ADDR: "[::1]:0" }).metrics).toEqual({ host: "::1", port: 0 });
    for (const wrong of ["localhost", "host:", ":9464x", "1.2.3.4:70000", "a:b:9464"]) {
      expect(() => serverConfig({ SVC_METRICS_ADDR: wrong }), wrong).toThrow(
        /SVC_METRICS_ADDR=.* is not a listen address/,
      );
    }
  });
});
