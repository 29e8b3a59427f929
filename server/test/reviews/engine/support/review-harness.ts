import { hashJson } from "@svc/app";
import type { ReviewProtocolDocument } from "@svc/schemas";
import { IdPrefix } from "@svc/schemas";
import type { Pool, Sql } from "../../../../src/core/db/connect-sql.ts";
import { randomId } from "../../../../src/core/ids/random-id.ts";
import type { Services } from "../../../../src/core/services/services.ts";
import type { Clock } from "../../../../src/core/time/clock.ts";
import { readProcessRow } from "../../../../src/reviews/read-process-rows.ts";
import type { ReviewProcessRow } from "../../../../src/reviews/review-records.ts";
import {
  type StartReviewProcessInput,
  startReviewProcess,
} from "../../../../src/reviews/start-review-process.ts";
import type { Principal } from "../../../../src/users/principal.ts";
import { newAuthor, newUser } from "../../../authoring/support/authoring-harness.ts";
import { testServices } from "../../../support/test-services.ts";
import {
  type PublishedProblem,
  publishProblem,
  type SeedArtifact,
  seedSubmission,
} from "../../../verification/support/verification-harness.ts";

/** A clock the test moves by hand (services.clock). */
export interface TestClock extends Clock {
  set(date: Date): void;
  advanceMinutes(minutes: number): void;
}

export function testClock(start = new Date("2026-03-01T10:00:00Z")): TestClock {
  let now = start;
  const clock = (() => now) as TestClock;
  clock.set = (date) => {
    now = date;
  };
  clock.advanceMinutes = (minutes) => {
    now = new Date(now.getTime() + minutes * 60_000);
  };
  return clock;
}

/** Publishes a protocol document straight into review_protocols (content-addressed, as publication stores it). */
export async function insertProtocol(
  sql: Sql,
  publisherId: string,
  document: ReviewProtocolDocument,
): Promise<string> {
  const [existing] = await sql<{ id: string }[]>`
    select id from review_protocols where publisher_user_id = ${publisherId} and content_hash = ${hashJson(document)}`;
  if (existing) return existing.id;
  const id = randomId(IdPrefix.reviewProtocol);
  await sql`
    insert into review_protocols (id, slug, publisher_user_id, content_hash, document)
    values (${id}, ${`engine-${id.slice(4)}`}, ${publisherId}, ${hashJson(document)}, ${sql.json(document as never)})`;
  return id;
}

/** A published problem, a submitter and their Submission: what a review process examines. */
export interface ReviewWorld {
  services: Services;
  clock: TestClock;
  author: Principal;
  submitter: Principal;
  problem: PublishedProblem;
  submission: { attempt_id: string; submission_id: string; verification_run_id: string };
}

export const ESSAY: SeedArtifact = {
  role: "essay",
  filename: "essay.md",
  media_type: "text/markdown",
  content: "# On proofs\n\nEvery claim here is checked.\n",
};

/**
 * Makes a published Problem listed: reviewers take seats only on work they may read, and new
 * work starts private (the owner's and administrators' alone).
 */
export async function listProblem(sql: Sql, problemId: string): Promise<void> {
  await sql`update problems set visibility = 'listed' where id = ${problemId}`;
}

/** The valid-review problem, published by a new author and listed, with one Submission by a new submitter. */
export async function reviewWorld(sql: Pool, artifacts: SeedArtifact[] = [ESSAY]): Promise<ReviewWorld> {
  const clock = testClock();
  const services = testServices(sql, { clock });
  const author = await newAuthor(sql);
  const submitter = await newUser(sql);
  const problem = await publishProblem(services, author, "valid-review");
  await listProblem(sql, problem.problem_id);
  const submission = await seedSubmission(services, submitter, problem, artifacts);
  return { services, clock, author, submitter, problem, submission };
}

/** Another Submission in the same world (each process test gets its own subject). */
export async function anotherSubmission(world: ReviewWorld, artifacts: SeedArtifact[] = [ESSAY]) {
  return await seedSubmission(world.services, world.submitter, world.problem, artifacts);
}

/** Starts (and commits) a process of `document` over a fresh Submission of the world's submitter. */
export async function startOn(
  world: ReviewWorld,
  document: ReviewProtocolDocument,
  overrides: Partial<StartReviewProcessInput> & { artifacts?: SeedArtifact[] } = {},
): Promise<ReviewProcessRow> {
  const { sql } = world.services;
  const protocolId = await insertProtocol(sql, world.author.user.id, document);
  const submission = await anotherSubmission(world, overrides.artifacts);
  const id = await sql.begin((tx) =>
    startReviewProcess(tx, world.clock(), {
      review_protocol_id: protocolId,
      subject_kind: "submission",
      subject_id: submission.submission_id,
      subject_user_id: world.submitter.user.id,
      subject_organization_id: null,
      problem_id: world.problem.problem_id,
      problem_revision_id: world.problem.problem_revision_id,
      campaign_id: null,
      ...overrides,
    }),
  );
  return (await readProcessRow(sql, id))!;
}

/** `n` new users (reviewers). */
export async function reviewers(sql: Pool, n: number): Promise<Principal[]> {
  const users: Principal[] = [];
  for (let i = 0; i < n; i++) users.push(await newUser(sql));
  return users;
}

/** An Organization with the given members. */
export async function seedOrganization(
  sql: Sql,
  members: Array<{ userId: string; role?: "owner" | "member" }>,
) {
  const id = randomId(IdPrefix.organization);
  await sql`insert into organizations (id, slug, name) values (${id}, ${`org-${id.slice(4)}`}, ${"Org"})`;
  for (const member of members) {
    await sql`
      insert into memberships (organization_id, user_id, role) values (${id}, ${member.userId}, ${member.role ?? "member"})`;
  }
  return id;
}

/** A valid response for the engine protocols' rubric. */
export function verdict(value: "accept" | "reject", extra: Record<string, unknown> = {}) {
  return { response: { verdict: value, ...extra }, rationale_md: `I ${value} it.`, citations: [] };
}
