import { failedConformance, readValidation } from "../client/authoring-results.ts";
import {
  awaitConformance,
  CONFORMANCE_WAIT_MS,
  packArchive,
  putArchive,
  requestUpload,
} from "../client/authoring-steps.ts";
import { ServiceCallError } from "../client/service-call-error.ts";
import { type UploadRecord, writeUploadRecord } from "../client/upload-record.ts";
import { withRetries } from "../client/with-retries.ts";
import { SERVER_ARCHIVE_LIMITS } from "../tree/file-tree.ts";
import type { CliDeps } from "./cli-deps.ts";
import type { CliIo } from "./cli-io.ts";
import { CONFORMANCE_FAILED } from "./cli-io.ts";
import { connectService } from "./connect-service.ts";
import { formatValidation } from "./format-validation.ts";
import { openLintedPackage } from "./open-linted-package.ts";
import { retryNotice } from "./retry-notice.ts";

/**
 * `svc upload <dir> [--json]`: lint, pack the whole package as one archive, then request, PUT and
 * validate it (each step retried on transient failures). Publishes nothing. Prints the validation
 * and records it in `<dir>/.svc/upload.json`. Exit 0 valid, 1 lint errors, invalid or refused, 2 usage,
 * 3 valid but a planned checker failed its own conformance fixtures (docs/cli.md, "Exit codes").
 */
export async function uploadCommand(
  dir: string,
  options: { json?: boolean; server?: string },
  io: CliIo,
  deps: CliDeps,
): Promise<number> {
  const linted = await openLintedPackage(dir, io, options);
  if (!linted) return 1;
  const { tree } = linted;
  const files = tree.paths().length;
  const unpacked = tree.paths().reduce((sum, p) => sum + (tree.size(p) ?? 0), 0);
  const archive = await packArchive(tree);
  const over =
    files > SERVER_ARCHIVE_LIMITS.maxFiles
      ? `${files} files (the service takes ${SERVER_ARCHIVE_LIMITS.maxFiles})`
      : archive.size_bytes > SERVER_ARCHIVE_LIMITS.maxZippedBytes
        ? `${archive.size_bytes} bytes zipped (the service takes ${SERVER_ARCHIVE_LIMITS.maxZippedBytes})`
        : unpacked > SERVER_ARCHIVE_LIMITS.maxUnpackedBytes
          ? `${unpacked} bytes unpacked (the service takes ${SERVER_ARCHIVE_LIMITS.maxUnpackedBytes})`
          : null;
  if (over) {
    io.stderr(`svc upload: the package is ${over} in one archive; svc draft cuts it into shards\n`);
    return 1;
  }

  const { client } = await connectService(options, deps);
  const retry = { sleep: deps.sleep, random: deps.random };
  let step = "request_authoring_upload";
  try {
    const upload = await withRetries(() => requestUpload(client, archive), {
      ...retry,
      onRetry: (info) => io.stderr(retryNotice(step, info)),
    });
    step = "upload PUT";
    await withRetries((attempt) => putArchive(client, upload, archive, attempt), {
      ...retry,
      onRetry: (info) => io.stderr(retryNotice(step, info)),
    });
    step = "validate_authoring_upload";
    const envelope = await withRetries(
      () => client.callTool("validate_authoring_upload", { upload_id: upload.upload_id }),
      { ...retry, onRetry: (info) => io.stderr(retryNotice(step, info)) },
    );
    // Sandboxed conformance fixtures run queued on the service: wait for them, bounded, saying so.
    const final = await awaitConformance(client, upload.upload_id, envelope, {
      sleep: deps.sleep,
      onProgress: (waited) => {
        if (waited % 30_000 === 0) {
          io.stderr(
            `svc upload: conformance fixtures queued on the service; waited ${waited / 1000} s of ${CONFORMANCE_WAIT_MS / 1000}\n`,
          );
        }
      },
    });
    if (final.conformance_state === "pending") {
      io.stderr(
        `svc upload: conformance fixtures still queued after ${CONFORMANCE_WAIT_MS / 1000} s; validate_authoring_upload {"upload_id": "${upload.upload_id}"} reads them when they finish\n`,
      );
    }
    const validation = readValidation(final);
    const record: UploadRecord = {
      upload_id: upload.upload_id,
      plan_hash: validation.plan_hash,
      content_hash: archive.content_hash,
      uploaded_at: deps.now().toISOString(),
      valid: validation.valid,
    };
    await writeUploadRecord(dir, record);
    if (options.json) {
      io.stdout(
        `${JSON.stringify({ ...final, upload_id: upload.upload_id, content_hash: archive.content_hash }, null, 2)}\n`,
      );
    } else {
      io.stdout(`upload ${upload.upload_id} (${archive.size_bytes} bytes, ${archive.content_hash})\n`);
      io.stdout(formatValidation(validation, { color: io.color }));
    }
    if (!validation.valid) return 1;
    return failedConformance(validation).length > 0 ? CONFORMANCE_FAILED : 0;
  } catch (error) {
    if (!(error instanceof ServiceCallError)) throw error;
    io.stderr(`svc upload: ${step} failed [${error.code}]: ${error.message}\n`);
    return 1;
  } finally {
    await client.close();
  }
}
