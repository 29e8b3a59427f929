import { CheckerResult } from "@svc/schemas";
import { z } from "zod";
import { registerExternalSystem } from "../../../external-systems/register-external-system.ts";
import {
  attestExternalStage,
  PARTNER_EVIDENCE_MAX_BYTES,
} from "../../../verification/attest-external-stage.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { stageKey, verificationRunId } from "../../inputs/verification-inputs.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const registerExternalSystemTool = defineTool({
  name: "register_external_system",
  title: "Register a partner system",
  description:
    "Operators (administrators): registers the partner system that Contracts' external stages name in external_system " +
    "(the exact name), how many hours a run waits for its attestation, and adds the users (handles) who may attest " +
    "for it with attest_external_stage. Calling again changes the hours for stages that start waiting later and adds " +
    "attesters.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.maintenance,
  input: z.strictObject({
    system: z.string().min(1).max(200).describe("The system's name, exactly as external_system gives it."),
    attestation_hours: z
      .number()
      .int("must be a whole number of hours")
      .min(1)
      .max(8760)
      .describe("How long a run waits for an attestation before the stage ends inconclusive (1 to 8760)."),
    attesters: z
      .array(z.string().min(1).max(39))
      .max(50)
      .default([])
      .describe("Handles of the users who may attest for the system (added; never removed here)."),
  }),
  async run({ services, principal }, input) {
    return await registerExternalSystem(services.sql, viewerOf(principal), input);
  },
});

/** The longest base64 text of PARTNER_EVIDENCE_MAX_BYTES bytes (4 characters per 3 bytes, padded). */
const EVIDENCE_BASE64_MAX = Math.ceil(PARTNER_EVIDENCE_MAX_BYTES / 3) * 4;

/** The name the partner's evidence file is listed and read under. */
const evidenceFilename = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^/\\]+$/, "must be a file name without a path")
  .describe("The evidence file's name (e.g. report.pdf).");

const attestExternalStageTool = defineTool({
  name: "attest_external_stage",
  title: "Attest an external stage",
  description:
    "A partner system's registered attester records its result for one waiting external stage of a run, once: " +
    "result (verified, refuted or inconclusive), reference (the partner's own record, 1 to 500 characters), " +
    "evidence_hash (sha256 of the partner's evidence, or null), evidence_md and optionally the evidence bytes themselves (at most 512 KiB). The stage's evidence says it waits and " +
    "until when; after that deadline it ends inconclusive (attestation_closed). A second attestation is already_attested.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.maintenance,
  input: z.strictObject({
    verification_run_id: verificationRunId,
    stage_key: stageKey,
    result: z.enum(CheckerResult).describe("verified, refuted or inconclusive (error is the service's own)."),
    reference: z
      .string()
      .min(1)
      .max(500)
      .describe("The partner's reference for this attestation (1 to 500)."),
    evidence_hash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, "must be sha256: and 64 lowercase hex digits, or null")
      .nullable()
      .default(null)
      .describe("sha256 of the partner's evidence, or null."),
    evidence_md: z
      .string()
      .max(20_000)
      .default("")
      .describe("What the partner found, in Markdown (at most 20000)."),
    evidence: z
      .strictObject({
        filename: evidenceFilename,
        content_base64: z
          .base64("must be base64")
          .max(EVIDENCE_BASE64_MAX, "must decode to at most 512 KiB")
          .describe("The bytes, base64 (at most 512 KiB decoded)."),
      })
      .optional()
      .describe(
        "The partner's evidence bytes (at most 512 KiB), kept as the stage's evidence file and read like a sandbox stage's evidence; evidence_hash, when given, must be their sha256.",
      ),
  }),
  async run({ services, principal }, { evidence, ...input }) {
    return await attestExternalStage(services, viewerOf(principal), {
      ...input,
      evidence: evidence && {
        filename: evidence.filename,
        bytes: Buffer.from(evidence.content_base64, "base64"),
      },
    });
  },
});

/** The external-system tools, registered in tools.ts. */
export const externalSystemTools: readonly Tool[] = [
  registerExternalSystemTool,
  attestExternalStageTool,
] as Tool[];
