import { Scope } from "@svc/schemas";
import { z } from "zod";
import { authorizeCli } from "../../../oauth/cli-login.ts";
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

/** authorize_cli (spec 4.1 authoring tools, 5.6): approve the code `svc login --mcp` shows. */
const authorizeCliTool = defineTool({
  name: "authorize_cli",
  title: "Approve a command-line login",
  description:
    "Approves the one-time code (XXXX-XXXX) that `svc login --mcp` shows, so that command line receives " +
    "its own credential with this connection's read/contribute scope plus the user's capabilities. " +
    "Approve only a code the user has just seen in their own terminal.",
  scope: Scope.contribute,
  kind: ToolKind.write,
  input: z.object({ code: z.string().max(32).describe("the one-time code the command line shows") }),
  run: async (context, input) => ({ ...(await authorizeCli(context.services.sql, context, input)) }),
});

/** The account tools: whoami, authorize_cli. */
export const accountTools: Tool[] = [whoamiTool, authorizeCliTool];
