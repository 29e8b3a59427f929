import { artifactResources, artifactTools } from "../artifacts/artifact-tools.ts";
import { attemptTools } from "../attempts/attempt-tools.ts";
import { authoringTools } from "../authoring/authoring-tools.ts";
import { noteTools } from "../notes/note-tools.ts";
import { discoveryResources, discoveryTools } from "../problems/discovery-tools.ts";
import { reviewResources, reviewTools } from "../reviews/review-tools.ts";
import { sandboxImageTools } from "../sandbox-images/sandbox-image-tools.ts";
import { sealingTools } from "../sealing/sealing-tools.ts";
import { submissionTools } from "../submissions/submission-tools.ts";
import { accountTools } from "../users/account-tools.ts";
import { verificationResources, verificationTools } from "../verification/verification-tools.ts";
import { workTools } from "../work/work-tools.ts";
import type { ResourceTemplate } from "./resource-template.ts";
import type { Tool } from "./tool.ts";

/** Every agent tool the MCP endpoint serves, grouped by the domain that owns it. */
export const tools: readonly Tool[] = [
  ...accountTools,
  ...discoveryTools,
  ...workTools,
  ...authoringTools,
  ...attemptTools,
  ...noteTools,
  ...artifactTools,
  ...submissionTools,
  ...verificationTools,
  ...sandboxImageTools,
  ...sealingTools,
  ...reviewTools,
];

/** Every `svc://` resource template. */
export const resourceTemplates: readonly ResourceTemplate[] = [
  ...discoveryResources,
  ...artifactResources,
  ...verificationResources,
  ...reviewResources,
];
