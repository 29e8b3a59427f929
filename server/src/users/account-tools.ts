import type { Tool } from "../tools/tool.ts";

/** whoami. */
export const accountTools: Tool[] = [];
