import { authoringTools } from "../authoring/authoring-tools.ts";
import { discoveryResources, discoveryTools } from "../problems/discovery-tools.ts";
import { sandboxImageTools } from "../sandbox-images/sandbox-image-tools.ts";
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
  ...verificationTools,
  ...sandboxImageTools,
];

/** Every `svc://` resource template. */
export const resourceTemplates: readonly ResourceTemplate[] = [
  ...discoveryResources,
  ...verificationResources,
];
