import { Scope } from "@svc/schemas";
import { z } from "zod";
import { whoami } from "../../../users/whoami.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

/** whoami (spec 4.1, discovery tools): the caller, their organizations, live role and token scope. */
const whoamiTool = defineTool({
  name: "whoami",
  title: "Who am I",
  description:
    "The connected user (id, handle, created_at), their organization memberships, their highest live " +
    "work_role (contributor, author, trusted_author, administrator), and the token's scopes and " +
    "capabilities.",
  scope: Scope.read,
  kind: ToolKind.read,
  input: z.object({}),
  run: async (context) => ({ ...(await whoami(context.services.sql, context.principal)) }),
});

/** The account tools: whoami. */
export const accountTools: Tool[] = [whoamiTool];
