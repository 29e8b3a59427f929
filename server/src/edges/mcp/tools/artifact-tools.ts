import { z } from "zod";
import { MAX_ARTIFACT_BYTES, MAX_INLINE_ARTIFACT_BYTES } from "../../../artifacts/artifact-limits.ts";
import { listArtifacts } from "../../../artifacts/list-artifacts.ts";
import { requestArtifactUpload } from "../../../artifacts/request-artifact-upload.ts";
import { reuseArtifact } from "../../../artifacts/reuse-artifact.ts";
import { uploadArtifact } from "../../../artifacts/upload-artifact.ts";
import { withdrawArtifact } from "../../../artifacts/withdraw-artifact.ts";
import { uploadArtifactResult } from "../../http/api-responses.ts";
import { artifactFilename, artifactMediaType } from "../../inputs/artifact-fields.ts";
import { attemptIdField, recordIdField } from "../../inputs/attempt-fields.ts";
import { artifactResource } from "../resources/artifact-resource.ts";
import type { ResourceTemplate } from "../resources/resource-template.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const artifactId = (description: string) => recordIdField("art", "an Artifact", description);

const uploadArtifactTool = defineTool({
  name: "upload_artifact",
  title: "Upload a small artifact",
  description:
    `Uploads a file of at most ${MAX_INLINE_ARTIFACT_BYTES} bytes (512 KiB) into your active Attempt, as content_text ` +
    "(UTF-8) or content_base64. Larger files: request_artifact_upload. Returns {artifact}.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.solving,
  output: uploadArtifactResult,
  input: z.strictObject({
    attempt_id: attemptIdField("Your active Attempt."),
    filename: artifactFilename,
    media_type: artifactMediaType,
    // Generous string caps: the byte ceiling is checked after decoding, with a hint.
    content_text: z
      .string()
      .max(4 * 1024 * 1024)
      .optional()
      .describe("The file as UTF-8 text."),
    content_base64: z
      .string()
      .max(8 * 1024 * 1024)
      .optional()
      .describe("The file's bytes, base64-encoded."),
  }),
  async run(context, input) {
    return { ...(await uploadArtifact(context.services, context, input)) };
  },
});

const requestArtifactUploadTool = defineTool({
  name: "request_artifact_upload",
  title: "Request an artifact upload URL",
  description:
    `Returns {upload_id, upload_url, expires_at, max_bytes}: PUT exactly the declared bytes (at most ${MAX_ARTIFACT_BYTES}, ` +
    "256 MiB) to upload_url within 15 minutes, no Authorization header; the PUT answers {upload_id, artifact}.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.workbench,
  input: z.strictObject({
    attempt_id: attemptIdField("Your active Attempt."),
    filename: artifactFilename,
    media_type: artifactMediaType,
    size_bytes: z.number().int().min(0).describe("The file's size in bytes."),
    content_hash: z.string().describe('"sha256:" and the 64 lowercase hex digits of the file\'s sha256.'),
  }),
  async run(context, input) {
    return { ...(await requestArtifactUpload(context.services, context, input)) };
  },
});

const reuseArtifactTool = defineTool({
  name: "reuse_artifact",
  title: "Reuse an artifact",
  description:
    "Carries a live Artifact of another of your Attempts on the same Problem (typically the one this continues) into " +
    "your active Attempt by reference, without uploading it again. Returns {artifact}.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.workbench,
  input: z.strictObject({
    attempt_id: attemptIdField("Your active Attempt to carry the Artifact into."),
    artifact_id: artifactId("The Artifact to reuse."),
  }),
  async run(context, input) {
    return { ...(await reuseArtifact(context.services, context, input)) };
  },
});

const listArtifactsTool = defineTool({
  name: "list_artifacts",
  title: "List artifacts",
  description:
    "The Artifacts of an Attempt, oldest first, withdrawn ones included; live ones with resource_uri and a signed " +
    "15-minute download_url. Returns {artifacts}.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.workbench,
  apiRoute: "/api/attempts/:attempt_id/artifacts",
  input: z.strictObject({ attempt_id: attemptIdField("The Attempt.") }),
  async run(context, input) {
    return { ...(await listArtifacts(context.services, context, input)) };
  },
});

const withdrawArtifactTool = defineTool({
  name: "withdraw_artifact",
  title: "Withdraw an artifact",
  description:
    "Withdraws one of your Artifacts for good: its resource and download links answer 410 from now on and no new " +
    "Submission may name it. Submissions that already bound it keep their record. Returns {artifact}.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.workbench,
  input: z.strictObject({ artifact_id: artifactId("The Artifact to withdraw.") }),
  async run(context, input) {
    return { ...(await withdrawArtifact(context.services, context, input)) };
  },
});

/** The Artifact tools of spec 4.1. */
export const artifactTools: Tool[] = [
  uploadArtifactTool,
  requestArtifactUploadTool,
  reuseArtifactTool,
  listArtifactsTool,
  withdrawArtifactTool,
];

/** `svc://artifacts/{artifact_id}`. */
export const artifactResources: ResourceTemplate[] = [artifactResource];
