import { sha256 } from "@svc/app";
import { afterAll, beforeAll } from "vitest";
import type { Services } from "../../../src/core/services/services.ts";
import { buildApp } from "../../../src/edges/cli/build-app.ts";
import { executeVerificationRun } from "../../../src/verification/execute-verification-run.ts";
import { call, startOn, uploadText } from "../../attempts/support/solving-fixture.ts";
import { clientLines, type TestClient } from "../../edges/mcp/support/mcp-clients.ts";
import {
  contractDocument,
  type SeededProblem,
  type SeededUser,
  seedContract,
  seedImplementation,
  seedProblem,
  seedRevision,
  seedUser,
} from "../../support/seed-records.ts";
import { useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";

/**
 * The sealed instance of the Problem `slug`: a comment naming it makes every Problem its own
 * evaluation (same sealed bytes and owner would share one). SEALED_CLAUSE is the clause a
 * refuting checker quotes.
 */
export const sealedText = (slug: string): string => `c ${slug}\np cnf 5 3\n1 -2 0\n2 3 -5 0\n4 5 0\n`;
export const SEALED_CLAUSE = "2 3 -5 0";
/** The content hash of a Problem's sealed instance. */
export const sealedHash = (slug: string): string => sha256(sealedText(slug));
/** Satisfies every clause; refutes clause 2 (so the checker quotes it). */
export const GOOD_ASSIGNMENT = "1 2 3 4 5";
export const BAD_ASSIGNMENT = "-1 -2 -3 4 5";

/** The fixture's fixed start; the clock only moves when a test sets it. */
export const T0 = new Date("2030-01-01T00:00:00.000Z");
const DAY = 86_400_000;
/** `days` after T0, as an ISO string. */
export const at = (days: number): string => new Date(T0.getTime() + days * DAY).toISOString();

/** A sealed contract: one sandbox stage selecting the sealed slot, a public slot beside it. */
export function sealedContract(): Record<string, unknown> {
  const document = contractDocument([{ key: "instance", sealed: true }, { key: "notes" }]);
  (document.stages as Array<Record<string, unknown>>)[0]!.reference_input_slots = ["instance"];
  return {
    ...document,
    submission_requirements: {
      required_artifacts: [
        { role: "assignment", description: "Signed literals", media_types: ["text/plain"], max_bytes: 4096 },
      ],
      accepts_text_only: false,
      answer_format_md: null,
    },
  };
}

/** A sealing policy as publication stores it (evaluation_id derived on read). */
export function sealing(options: {
  mode: "immediate" | "final_only";
  releaseAt?: string | null;
  closesAt?: string | null;
  sealedUntil?: string;
  max?: number;
  windowHours?: number;
  entries?: "collaborative" | "independent";
}): Record<string, unknown> {
  return {
    sealed_until: options.sealedUntil ?? at(60),
    submission_limit: { max_submissions: options.max ?? 100, window_hours: options.windowHours ?? 24 },
    unsealed_at: null,
    submission_closes_at: options.closesAt ?? null,
    score_release: { mode: options.mode, release_at: options.releaseAt ?? null },
    release_event: null,
    entries: options.entries ?? "collaborative",
  };
}

/** What the sealed tests work with. */
export interface SealedFixture {
  services: Services;
  url: string;
  /** The mutable clock's current time; tests move it with `setNow`. */
  setNow(date: Date | string): void;
  owner: SeededUser;
  solver: SeededUser;
  /** Neither owner nor submitter. */
  rival: SeededUser;
  admin: SeededUser;
  contractId: string;
  as(user: SeededUser): TestClient;
  /** A listed Problem with the sealed contract and the given sealing. */
  sealedProblem(
    slug: string,
    policy: Record<string, unknown>,
    options?: { campaignId?: string },
  ): Promise<SeededProblem>;
  /** A second revision with the same sealed bytes: the same evaluation. */
  revise(slug: string, problem: SeededProblem, policy: Record<string, unknown>): Promise<string>;
  /** Starts an Attempt, uploads the assignment and submits it; returns the ids. */
  submit(
    user: SeededUser,
    problem: string,
    assignment: string,
  ): Promise<{ attempt_id: string; submission_id: string; verification_run_id: string }>;
  /** Executes a queued run in process, as a worker would. */
  execute(runId: string): Promise<void>;
  /** GET over real HTTP with the user's bearer. */
  http(path: string, user?: SeededUser, accept?: string): Promise<Response>;
}

/**
 * One database, the whole app listening with a settable clock, users, the sealed contract with a
 * conformance-passed builtin implementation, and one MCP client per user.
 */
export function useSealedFixture(): SealedFixture {
  const db = useTestDatabase();
  const fixture = {} as SealedFixture;
  const clients = new Map<string, TestClient>();
  let now = T0;
  let app: ReturnType<typeof buildApp> | undefined;
  beforeAll(async () => {
    const services = testServices(db.sql, { clock: () => now });
    fixture.services = services;
    fixture.setNow = (date) => {
      now = typeof date === "string" ? new Date(date) : date;
    };
    fixture.owner = await seedUser(db.sql, "owner", { capabilities: ["author"] });
    fixture.solver = await seedUser(db.sql, "solver");
    fixture.rival = await seedUser(db.sql, "rival");
    fixture.admin = await seedUser(db.sql, "admin", { admin: true });
    fixture.contractId = await seedContract(db.sql, fixture.owner.id, sealedContract());
    await seedImplementation(db.sql, {
      contractId: fixture.contractId,
      stageKey: "check",
      author: fixture.owner.id,
    });
    const revision = (slug: string, policy: Record<string, unknown>) => ({
      statement: "Satisfy the sealed instance.",
      verifierContractId: fixture.contractId,
      bindings: [
        { key: "instance", bytes: sealedText(slug), filename: "instance.cnf" },
        { key: "notes", bytes: "public notes", filename: "notes.txt" },
      ],
      sealing: policy,
    });
    fixture.sealedProblem = (slug, policy, options = {}) =>
      seedProblem(services, {
        owner: fixture.owner.id,
        slug,
        visibility: "listed",
        campaignId: options.campaignId ?? null,
        revision: revision(slug, policy),
      });
    fixture.revise = (slug, problem, policy) =>
      seedRevision(services, problem.problemId, fixture.owner.id, revision(slug, policy));
    app = buildApp(services);
    fixture.url = await app.listen({ host: "127.0.0.1", port: 0 });
    const connect = clientLines[0].connect;
    for (const user of [fixture.owner, fixture.solver, fixture.rival, fixture.admin]) {
      clients.set(user.id, await connect(fixture.url, user.token));
    }
    fixture.as = (user) => clients.get(user.id)!;
    fixture.submit = async (user, problem, assignment) => {
      const client = fixture.as(user);
      const attemptId = await startOn(client, problem);
      const artifactId = await uploadText(client, attemptId, "assignment.txt", assignment, "text/plain");
      const created = await call<{ submission: { id: string }; verification_run_id: string }>(
        client,
        "create_submission",
        { attempt_id: attemptId, artifacts: [{ role: "assignment", artifact_id: artifactId }] },
      );
      return {
        attempt_id: attemptId,
        submission_id: created.submission.id,
        verification_run_id: created.verification_run_id,
      };
    };
    fixture.execute = async (runId) => {
      await executeVerificationRun(services, runId);
    };
    fixture.http = (path, user, accept) =>
      fetch(`${fixture.url}${path}`, {
        headers: {
          ...(user ? { authorization: `Bearer ${user.token}` } : {}),
          ...(accept ? { accept } : {}),
        },
      });
  }, 60_000);
  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    app?.server.closeAllConnections();
    await app?.close();
  }, 30_000);
  return fixture;
}
