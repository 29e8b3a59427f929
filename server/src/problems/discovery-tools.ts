import type { ResourceTemplate } from "../tools/resource-template.ts";
import type { Tool } from "../tools/tool.ts";

/** The discovery and read tools of spec 4.1. */
export const discoveryTools: Tool[] = [];

/** The `svc://` resources of published work. */
export const discoveryResources: ResourceTemplate[] = [];
