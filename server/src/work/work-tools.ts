import type { Tool } from "../tools/tool.ts";

/** Work management: get_work_management, update_work_details, set_work_visibility. */
export const workTools: Tool[] = [];
