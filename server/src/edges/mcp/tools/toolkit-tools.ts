import { Scope } from "@svc/schemas";
import { z } from "zod";
import { getAuthoringToolkit } from "../../../toolkit/get-authoring-toolkit.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

/** get_authoring_toolkit (spec 4.1): the svc command line as one downloadable file. */
export const toolkitTools: Tool[] = [
  defineTool({
    name: "get_authoring_toolkit",
    title: "Get the authoring toolkit",
    description:
      "The svc command line as a single JavaScript file that runs on Node 22.18 or newer with nothing installed " +
      "(node svc.mjs lint <dir>, init, test, draft): {version, content_hash, platforms, download_url (signed, 15 minutes), expires_at}.",
    scope: Scope.read,
    kind: ToolKind.read,
    toolset: Toolset.authoring,
    apiRoute: "/api/authoring-toolkit",
    input: z.strictObject({}),
    run: async ({ services, principal, baseUrl }) => ({
      ...(await getAuthoringToolkit(services, { principal, baseUrl })),
    }),
  }),
];
