import type { Tool } from "../tools/tool.ts";

/** The authoring tools of spec 4.1: request, validate and publish uploads; archive work. */
export const authoringTools: Tool[] = [];
