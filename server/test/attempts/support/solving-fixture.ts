import { afterAll, beforeAll } from "vitest";
import type { Services } from "../../../src/core/services/services.ts";
import { buildApp } from "../../../src/edges/cli/build-app.ts";
import {
  clientLines,
  envelopeOf,
  type TestClient,
  type ToolCallResult,
} from "../../edges/mcp/support/mcp-clients.ts";
import {
  contractDocument,
  type SeededProblem,
  type SeededUser,
  seedContract,
  seedProblem,
  seedUser,
} from "../../support/seed-records.ts";
import { useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";

/** The roles of the fixture's contract: a JSON answer of at most 64 bytes and a plain-text proof. */
export const ROLES = [
  { role: "answer", description: "The answer as JSON", media_types: ["application/json"], max_bytes: 64 },
  {
    role: "proof",
    description: "Why it holds",
    media_types: ["text/plain", "text/markdown"],
    max_bytes: 4096,
  },
];

/** A contract document with the fixture's roles and, optionally, a review stage after the sandbox one. */
export function rolesContract(
  options: { textOnly?: boolean; review?: boolean } = {},
): Record<string, unknown> {
  const document = contractDocument([]);
  const stages = document.stages as unknown[];
  if (options.review) {
    stages.push({
      key: "judge",
      kind: "review",
      title: "Judge",
      description_md: "",
      evidence_schema: null,
      review_protocol_id: "rpt_0000000000",
      rule_owner: "contract",
      acceptance: "Reviewers agree.",
      external_system: null,
    });
  }
  return {
    ...document,
    submission_requirements: {
      required_artifacts: ROLES,
      accepts_text_only: options.textOnly ?? false,
      answer_format_md: "A JSON object.",
    },
  };
}

/** What a solving test works with: the service, an MCP client per user and seeded problems. */
export interface SolvingFixture {
  services: Services;
  url: string;
  owner: SeededUser;
  solver: SeededUser;
  rival: SeededUser;
  admin: SeededUser;
  reader: SeededUser;
  /** Listed, pins the roles contract. */
  graded: SeededProblem;
  /** Listed, pins no contract. */
  free: SeededProblem;
  /** Private to the owner. */
  secret: SeededProblem;
  /** Archived. */
  closed: SeededProblem;
  as(user: SeededUser): TestClient;
}

/**
 * One database, the whole app listening, users and problems seeded, and one MCP client (the v2
 * client on 2026-07-28) per user, for the enclosing file. Reads `fixture.x` inside tests only.
 */
export function useSolvingFixture(): SolvingFixture {
  const db = useTestDatabase();
  const fixture = {} as SolvingFixture;
  const clients = new Map<string, TestClient>();
  let app: ReturnType<typeof buildApp> | undefined;
  beforeAll(async () => {
    const services = testServices(db.sql);
    fixture.services = services;
    fixture.owner = await seedUser(db.sql, "owner", { capabilities: ["author"] });
    fixture.solver = await seedUser(db.sql, "solver");
    fixture.rival = await seedUser(db.sql, "rival");
    fixture.admin = await seedUser(db.sql, "admin", { admin: true });
    fixture.reader = await seedUser(db.sql, "reader", { scopes: ["read"] });
    const contract = await seedContract(db.sql, fixture.owner.id, rolesContract());
    fixture.graded = await seedProblem(services, {
      owner: fixture.owner.id,
      slug: "graded",
      visibility: "listed",
      revision: { statement: "Find the answer.", verifierContractId: contract },
    });
    fixture.free = await seedProblem(services, {
      owner: fixture.owner.id,
      slug: "free",
      visibility: "listed",
    });
    fixture.secret = await seedProblem(services, { owner: fixture.owner.id, slug: "secret" });
    fixture.closed = await seedProblem(services, {
      owner: fixture.owner.id,
      slug: "closed",
      visibility: "listed",
      archived: true,
    });
    app = buildApp(services);
    fixture.url = await app.listen({ host: "127.0.0.1", port: 0 });
    const connect = clientLines[0].connect;
    for (const user of [fixture.owner, fixture.solver, fixture.rival, fixture.admin, fixture.reader]) {
      clients.set(user.id, await connect(fixture.url, user.token, "?toolsets=all"));
    }
    fixture.as = (user) => clients.get(user.id)!;
    // Five users, four problems and five MCP connections: more than the default 10 s on a busy machine.
  }, 60_000);
  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    // fetch's pooled keep-alive sockets (signed PUTs and downloads) would hold the close open.
    app?.server.closeAllConnections();
    await app?.close();
  }, 30_000);
  return fixture;
}

/** The error body of a tool error; throws when the call succeeded. */
export function errorOf(result: ToolCallResult): {
  code: string;
  message: string;
  [detail: string]: unknown;
} {
  if (!result.isError)
    throw new Error(`expected a tool error, got ${JSON.stringify(result.structuredContent)}`);
  return (envelopeOf(result) as { error: { code: string; message: string } }).error;
}

/** The envelope of a successful call; throws with the error otherwise. */
export function okOf<T = Record<string, unknown>>(result: ToolCallResult): T {
  if (result.isError) throw new Error(`tool error: ${result.content[0]?.text}`);
  return envelopeOf(result) as T;
}

/** Calls a tool and returns its envelope, failing on a tool error. */
export async function call<T = Record<string, unknown>>(
  client: TestClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  return okOf<T>(await client.callTool(name, args));
}

/** Calls a tool that must fail and returns the error body. */
export async function refuse(
  client: TestClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ code: string; message: string; [detail: string]: unknown }> {
  return errorOf(await client.callTool(name, args));
}

/** Starts an Attempt of the client's user on `problem` and returns its id. */
export async function startOn(
  client: TestClient,
  problem: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const started = await call<{ attempt: { id: string } }>(client, "start_attempt", { problem, ...extra });
  return started.attempt.id;
}

/** Uploads a small text artifact and returns its id. */
export async function uploadText(
  client: TestClient,
  attemptId: string,
  filename: string,
  text: string,
  mediaType?: string,
): Promise<string> {
  const result = await call<{ artifact: { id: string } }>(client, "upload_artifact", {
    attempt_id: attemptId,
    filename,
    content_text: text,
    ...(mediaType && { media_type: mediaType }),
  });
  return result.artifact.id;
}
