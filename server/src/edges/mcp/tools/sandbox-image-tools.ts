import { z } from "zod";
import { getSandboxImageStatus } from "../../../sandbox-images/get-sandbox-image-status.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { workingAttemptId } from "../../inputs/discovery-inputs.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const getSandboxImageStatusTool = defineTool({
  name: "get_sandbox_image_status",
  title: "Get sandbox image status",
  description:
    "The state of a sandbox image on this deployment (registered, provisioning, available, provisioning_failed, " +
    "unbound) with the reason, named by author reference, bare sha256 digest, or runtime name such as " +
    "svc-runtime/python:1; lists the implementations that run on it and their conformance.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.authoring,
  apiRoute: "/api/sandbox-image-status",
  input: z.strictObject({
    image: z
      .string()
      .min(1)
      .max(500)
      .describe("An image reference, a sha256:<64 hex> digest, or a runtime name."),
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal }, input) {
    return { ...(await getSandboxImageStatus(services, viewerOf(principal), input.image)) };
  },
});

/** The sandbox image tools, registered in tools.ts. */
export const sandboxImageTools: readonly Tool[] = [getSandboxImageStatusTool] as Tool[];
