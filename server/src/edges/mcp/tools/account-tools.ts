import { AuthorAccess, Role, Scope } from "@svc/schemas";
import { z } from "zod";
import { authorizeCli } from "../../../oauth/cli-login.ts";
import { setAuthorAccess } from "../../../users/set-author-access.ts";
import { whoami } from "../../../users/whoami.ts";
import { whoamiResult } from "../../http/api-responses.ts";
import { userField } from "../../inputs/organization-fields.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

/** whoami (spec 4.1, discovery tools): the caller, their organizations, live role and token scope. */
const whoamiTool = defineTool({
  name: "whoami",
  title: "Who am I",
  description:
    "The connected user (id, handle, created_at), their organization memberships (role, joined_at) and open " +
    "invitations, their highest live work_role (contributor, author, trusted_author, administrator) and roles, the " +
    "token's scopes and the capabilities it carries that the user still holds, and every grant of a capability or " +
    "role with grantor and time (a null grantor is an operator).",
  scope: Scope.read,
  kind: ToolKind.read,
  toolset: Toolset.solving,
  apiRoute: "/api/whoami",
  apiRouteByHand: true,
  output: whoamiResult,
  input: z.object({}),
  run: async (context) => ({ ...(await whoami(context.services.sql, context.principal)) }),
});

/** set_author_access (spec 4.1 authoring tools, 5.4): a live administrator sets a user's author access. */
const setAuthorAccessTool = defineTool({
  name: "set_author_access",
  title: "Set author access",
  description:
    "Administrators only (checked live): sets a user's author access to exactly none, author (the author " +
    "capability: publish private work, open participation, archive) or trusted_author (author, and may list their " +
    "own work). Each grant and revocation is recorded with you as grantor and the time, and applies on the user's " +
    "next action whatever token they hold. Returns {user, access, changed, grants}.",
  scope: Scope.contribute,
  kind: ToolKind.write,
  toolset: Toolset.administration,
  role: Role.administrator,
  input: z.strictObject({
    user: userField.describe("The user's handle or usr_ id."),
    access: z
      .enum(Object.values(AuthorAccess) as [AuthorAccess, ...AuthorAccess[]])
      .describe("none, author or trusted_author."),
  }),
  run: async (context, input) => ({ ...(await setAuthorAccess(context.services, context, input)) }),
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
  toolset: Toolset.workbench,
  input: z.object({ code: z.string().max(32).describe("the one-time code the command line shows") }),
  run: async (context, input) => ({ ...(await authorizeCli(context.services.sql, context, input)) }),
});

/** The account tools: whoami, set_author_access, authorize_cli. */
export const accountTools: Tool[] = [whoamiTool, setAuthorAccessTool, authorizeCliTool];
