import type { Access } from "@svc/schemas";
import type { Pool } from "../../src/core/db/connect-sql.ts";
import { addUser } from "../../src/users/add-user.ts";
import { grantAccess } from "../../src/users/grant-access.ts";
import { grantRole } from "../../src/users/grant-role.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import { fixturePackage } from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";

/** A user of the draft tests: their id, handle and bearer token. */
export interface DraftUser {
  id: string;
  handle: string;
  token: string;
}

let count = 0;

/** A new user with the given capabilities, roles and token scopes. */
export async function draftUser(
  sql: Pool,
  options: { capabilities?: Access[]; admin?: boolean; trusted?: boolean; scopes?: string[] } = {},
): Promise<DraftUser> {
  count += 1;
  const handle = `drafter-${count}-${Math.random().toString(36).slice(2, 8)}`;
  const user = await addUser(sql, { handle, isAdmin: options.admin ?? false });
  for (const capability of options.capabilities ?? []) await grantAccess(sql, user.id, capability);
  if (options.trusted) await grantRole(sql, { userId: user.id, role: "trusted_author", grantedBy: null });
  const { token } = await issueToken(sql, handle, options.scopes ?? ["contribute"]);
  return { id: user.id, handle, token };
}

/** A connected MCP SDK client (the current line) for a user. */
export function connect(url: string, user: DraftUser): Promise<TestClient> {
  return clientLines[0].connect(url, user.token);
}

/** Calls a tool and returns its envelope, whether a result or `{error}`. */
export async function call(
  client: TestClient,
  name: string,
  args: Record<string, unknown>,
): Promise<
  Record<string, unknown> & { error?: { code: string; message: string } & Record<string, unknown> }
> {
  return envelopeOf(await client.callTool(name, args));
}

/** A fixture package's files as save_work_draft takes them (text files as text). */
export function draftFiles(
  name: string,
): Array<{ path: string; content_text?: string; content_base64?: string }> {
  return Object.entries(fixturePackage(name))
    .map(([path, bytes]) => ({ path, content_text: Buffer.from(bytes).toString("utf8") }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The valid-campaign package with its campaign and problem slugs suffixed, so each test's work is its own. */
export function uniqueCampaignFiles(suffix: string): Array<{ path: string; content_text?: string }> {
  return draftFiles("valid-campaign").map((file) => {
    if (file.path === "campaign.json" || file.path === "problems/integer-root/problem.json") {
      const value = JSON.parse(file.content_text!) as { slug: string };
      value.slug = `${value.slug}-${suffix}`;
      return { ...file, content_text: JSON.stringify(value, null, 2) };
    }
    return file;
  });
}
