import type { ResourceTemplate } from "../resources/resource-template.ts";
import { accountTools } from "./account-tools.ts";
import { agentTools } from "./agent-tools.ts";
import { artifactResources, artifactTools } from "./artifact-tools.ts";
import { attemptTools } from "./attempt-tools.ts";
import { attestationTools } from "./attestation-tools.ts";
import { authoringTools } from "./authoring-tools.ts";
import { discoveryResources, discoveryTools } from "./discovery-tools.ts";
import { draftTools } from "./draft-tools.ts";
import { externalSystemTools } from "./external-system-tools.ts";
import { noteTools } from "./note-tools.ts";
import { organizationTools } from "./organization-tools.ts";
import { publicationTools } from "./publication-tools.ts";
import { reviewResources, reviewTools } from "./review-tools.ts";
import { sandboxImageTools } from "./sandbox-image-tools.ts";
import { sealingTools } from "./sealing-tools.ts";
import { submissionTools } from "./submission-tools.ts";
import type { Tool } from "./tool.ts";
import { toolkitTools } from "./toolkit-tools.ts";
import { verificationResources, verificationTools } from "./verification-tools.ts";
import { workTools } from "./work-tools.ts";

/** Every agent tool the MCP endpoint serves, grouped by the domain that owns it. */
export const tools: readonly Tool[] = [
  ...accountTools,
  ...organizationTools,
  ...discoveryTools,
  ...workTools,
  ...toolkitTools,
  ...authoringTools,
  ...draftTools,
  ...publicationTools,
  ...attemptTools,
  ...noteTools,
  ...artifactTools,
  ...submissionTools,
  ...verificationTools,
  ...attestationTools,
  ...sandboxImageTools,
  ...externalSystemTools,
  ...sealingTools,
  ...reviewTools,
  ...agentTools,
];

/** Every `svc://` resource template. */
export const resourceTemplates: readonly ResourceTemplate[] = [
  ...discoveryResources,
  ...artifactResources,
  ...verificationResources,
  ...reviewResources,
];
