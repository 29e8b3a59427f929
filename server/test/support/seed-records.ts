import { hashJson, mediaTypeOf, sha256 } from "@svc/app";
import { type Access, IdPrefix, type Visibility } from "@svc/schemas";
import type { Sql } from "../../src/core/db/connect-sql.ts";
import { randomId } from "../../src/core/ids/random-id.ts";
import type { Services } from "../../src/core/services/services.ts";
import { addUser } from "../../src/users/add-user.ts";
import { authenticate } from "../../src/users/authenticate.ts";
import { grantAccess } from "../../src/users/grant-access.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";

/**
 * Published records written straight into the tables, exactly as migration 002 and publication
 * lay them out (search_document through svc_problem_search_document, revision 1 then
 * current_revision_id, referenced bytes in the blob store), so read paths can be tested without
 * going through an upload. Every helper takes what it needs and returns the new ids.
 */

/** A user with a bearer token: the principal the token stands for, and the token for HTTP. */
export interface SeededUser {
  id: string;
  handle: string;
  token: string;
  principal: Principal;
}

/** A user (optionally an administrator, with capabilities) and a token of the given scopes. */
export async function seedUser(
  sql: Sql,
  handle: string,
  options: { admin?: boolean; capabilities?: Access[]; scopes?: Array<"read" | "contribute"> } = {},
): Promise<SeededUser> {
  const user = await addUser(sql, { handle, isAdmin: options.admin ?? false });
  for (const capability of options.capabilities ?? []) await grantAccess(sql, user.id, capability);
  const { token } = await issueToken(sql, handle, options.scopes ?? ["contribute"]);
  const principal = await authenticate(sql, token);
  return { id: user.id, handle, token, principal: principal! };
}

/** Another token of an existing user, with other scopes. */
export async function seedToken(
  sql: Sql,
  user: SeededUser,
  scopes: Array<"read" | "contribute">,
): Promise<SeededUser> {
  const { token } = await issueToken(sql, user.handle, scopes);
  return { ...user, token, principal: (await authenticate(sql, token))! };
}

/** A Campaign, active and private unless told otherwise. */
export async function seedCampaign(
  sql: Sql,
  options: {
    owner: string;
    slug: string;
    title?: string;
    summary?: string;
    visibility?: Visibility;
    archived?: boolean;
  },
): Promise<string> {
  const id = randomId(IdPrefix.campaign);
  const archivedAt = options.archived ? new Date() : null;
  await sql`
    insert into campaigns (id, slug, owner_user_id, title, summary, visibility, status, archived_at)
    values (${id}, ${options.slug}, ${options.owner}, ${options.title ?? `Campaign ${options.slug}`},
      ${options.summary ?? `About ${options.slug}`}, ${options.visibility ?? "private"},
      ${archivedAt ? "archived" : "active"}, ${archivedAt})`;
  return id;
}

/** A reference binding to seed: stored bytes, or a link (the service stores nothing). */
export type SeedBinding =
  | { key: string; bytes: string | Uint8Array; filename?: string; media_type?: string }
  | {
      key: string;
      link: { url: string; content_hash: string; size_bytes: number; media_type: string; filename: string };
    };

/** What a seeded revision holds. */
export interface SeedRevision {
  statement: string;
  bindings?: SeedBinding[];
  skillRefs?: Array<{ skill_version_id: string; requirement: "required" | "recommended" }>;
  verifierContractId?: string | null;
  sealing?: Record<string, unknown> | null;
  benchmark?: Record<string, unknown> | null;
  changelog?: string | null;
}

/** Ids of a seeded Problem and its current revision. */
export interface SeededProblem {
  problemId: string;
  revisionId: string;
}

/**
 * A Problem with revision 1. Standalone Problems start private and Campaign Problems listed
 * (following their Campaign), as publication creates them, unless `visibility` says otherwise.
 */
export async function seedProblem(
  services: Pick<Services, "sql" | "blobs">,
  options: {
    owner: string;
    slug: string;
    title?: string;
    summary?: string;
    campaignId?: string | null;
    structure?: "SOLVE" | "BENCHMARK" | "DISCOVERY";
    priorityWeight?: number;
    visibility?: Visibility;
    activeAttempts?: number;
    archived?: boolean;
    revision?: Partial<SeedRevision>;
    createdAt?: Date;
  },
): Promise<SeededProblem> {
  const { sql } = services;
  const id = randomId(IdPrefix.problem);
  const title = options.title ?? `Problem ${options.slug}`;
  const summary = options.summary ?? `Summary of ${options.slug}`;
  const campaignId = options.campaignId ?? null;
  const archivedAt = options.archived ? new Date() : null;
  await sql`
    insert into problems (id, slug, owner_user_id, campaign_id, structure, title, summary, priority_weight,
      visibility, status, active_attempts, archived_at, created_at)
    values (${id}, ${options.slug}, ${options.owner}, ${campaignId}, ${options.structure ?? "SOLVE"}, ${title},
      ${summary}, ${options.priorityWeight ?? 0.5}, ${options.visibility ?? (campaignId ? "listed" : "private")},
      ${archivedAt ? "archived" : "open"}, ${options.activeAttempts ?? 0}, ${archivedAt},
      ${options.createdAt ?? new Date()})`;
  const revisionId = await seedRevision(services, id, options.owner, {
    statement: `Statement of ${options.slug}.`,
    ...options.revision,
  });
  return { problemId: id, revisionId };
}

/** The next revision of a Problem, made current; its statement feeds the search document. */
export async function seedRevision(
  services: Pick<Services, "sql" | "blobs">,
  problemId: string,
  author: string,
  revision: SeedRevision,
): Promise<string> {
  const { sql, blobs } = services;
  const bindings: Array<Record<string, unknown>> = [];
  for (const binding of revision.bindings ?? []) {
    if ("link" in binding) {
      bindings.push({ key: binding.key, ...binding.link });
      continue;
    }
    const stored = await blobs.put(
      typeof binding.bytes === "string" ? Buffer.from(binding.bytes, "utf8") : binding.bytes,
    );
    const filename = binding.filename ?? `${binding.key}.txt`;
    bindings.push({
      key: binding.key,
      content_hash: stored.content_hash,
      size_bytes: stored.size_bytes,
      media_type: binding.media_type ?? mediaTypeOf(filename),
      filename,
    });
  }
  const id = randomId(IdPrefix.problemRevision);
  const [{ next } = { next: 1 }] = await sql<{ next: number }[]>`
    select current_revision_number + 1 as next from problems where id = ${problemId}`;
  await sql.begin(async (tx) => {
    await tx`
      insert into problem_revisions (id, problem_id, revision_number, statement_md, context_md, benchmark,
        verifier_contract_id, verifier_input_bindings, sealing, skill_refs, changelog_md, created_by_user_id)
      values (${id}, ${problemId}, ${next}, ${revision.statement}, null,
        ${revision.benchmark ? tx.json(revision.benchmark as never) : null}, ${revision.verifierContractId ?? null},
        ${tx.json(bindings as never)}, ${revision.sealing ? tx.json(revision.sealing as never) : null},
        ${tx.json((revision.skillRefs ?? []) as never)}, ${next > 1 ? (revision.changelog ?? "Revised.") : null},
        ${author})`;
    await tx`
      update problems set current_revision_id = ${id}, current_revision_number = ${next},
        search_document = svc_problem_search_document(title, summary, ${revision.statement})
      where id = ${problemId}`;
  });
  return id;
}

/** A SkillVersion (and its Skill) of `publisher` with the given files, bytes in the blob store. */
export async function seedSkillVersion(
  services: Pick<Services, "sql" | "blobs">,
  options: {
    publisher: string;
    name: string;
    files: Record<string, string | Uint8Array>;
    description?: string;
    yanked?: boolean;
  },
): Promise<string> {
  const { sql, blobs } = services;
  const description = options.description ?? `The ${options.name} skill.`;
  const files = [];
  for (const [path, content] of Object.entries(options.files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const stored = await blobs.put(typeof content === "string" ? Buffer.from(content, "utf8") : content);
    files.push({
      path,
      content_hash: stored.content_hash,
      size_bytes: stored.size_bytes,
      media_type: mediaTypeOf(path),
    });
  }
  await sql`
    insert into skills (id, publisher_user_id, name) values (${randomId(IdPrefix.skill)}, ${options.publisher}, ${options.name})
    on conflict (publisher_user_id, name) do nothing`;
  const [skill] = await sql<{ id: string }[]>`
    select id from skills where publisher_user_id = ${options.publisher} and name = ${options.name}`;
  const id = randomId(IdPrefix.skillVersion);
  await sql`
    insert into skill_versions (id, skill_id, version_number, content_hash, name, description, files,
      created_by_user_id, yanked_at)
    values (${id}, ${skill!.id},
      (select coalesce(max(version_number), 0) + 1 from skill_versions where skill_id = ${skill!.id}),
      ${hashJson({ name: options.name, description, files })}, ${options.name}, ${description},
      ${sql.json(files as never)}, ${options.publisher}, ${options.yanked ? new Date() : null})`;
  return id;
}

/** A VerifierContract document with one sandbox stage, its slots as given. */
export function contractDocument(
  slots: Array<{ key: string; sealed?: boolean; required?: boolean }> = [],
  stages?: unknown[],
): Record<string, unknown> {
  return {
    title: "Checks the answer",
    statement_md: "The answer is right.",
    reference_inputs: slots.map((slot) => ({
      key: slot.key,
      required: slot.required ?? true,
      media_types: ["text/plain", "application/octet-stream"],
      max_bytes: 64 * 1024 * 1024,
      description: `The ${slot.key} input`,
      sealed: slot.sealed ?? false,
    })),
    stages: stages ?? [
      {
        key: "check",
        kind: "sandbox",
        title: "Check",
        description_md: "",
        evidence_schema: null,
        review_protocol_id: null,
        rule_owner: "contract",
        acceptance: "The checker verifies the answer.",
        external_system: null,
        implementation: "svc-builtin/sat-assignment-check:1",
        reference_input_slots: slots.map((slot) => slot.key),
      },
    ],
    submission_requirements: { required_artifacts: [], accepts_text_only: true, answer_format_md: null },
    result_kind: "pass_fail",
    score: null,
    conformance_fixtures: [],
  };
}

/** A VerifierContract of `publisher` holding `document`. */
export async function seedContract(
  sql: Sql,
  publisher: string,
  document: Record<string, unknown>,
): Promise<string> {
  const id = randomId(IdPrefix.verifierContract);
  await sql`
    insert into verifier_contracts (id, publisher_user_id, content_hash, document)
    values (${id}, ${publisher}, ${hashJson(document)}, ${sql.json(document as never)})`;
  return id;
}

/** A VerifierImplementation of one stage with the given conformance status. */
export async function seedImplementation(
  sql: Sql,
  options: {
    contractId: string;
    stageKey: string;
    author: string;
    status?: "pending" | "passed" | "failed";
    yanked?: boolean;
    /** The builtin it runs; the SAT checker unless stated. */
    imageRef?: string;
  },
): Promise<string> {
  const id = randomId(IdPrefix.verifierImplementation);
  const runtime = {
    kind: "container",
    image_ref: options.imageRef ?? "svc-builtin/sat-assignment-check:1",
    image_digest: sha256("x"),
  };
  const status = options.status ?? "passed";
  await sql`
    insert into verifier_implementations (id, verifier_contract_id, stage_key, version_number, runtime, entrypoint,
      limits, content_hash, conformance, created_by_user_id, yanked_at)
    values (${id}, ${options.contractId}, ${options.stageKey},
      (select coalesce(max(version_number), 0) + 1 from verifier_implementations
        where verifier_contract_id = ${options.contractId} and stage_key = ${options.stageKey}),
      ${sql.json(runtime)}, ${sql.json(["@builtin"])},
      ${sql.json({ vcpu: 1, memory_mb: 512, disk_mb: 256, timeout_seconds: 60, network: "none" })},
      ${sha256(id)},
      ${sql.json({
        status,
        checked_at: status === "pending" ? null : new Date().toISOString(),
        fixtures_total: 2,
        fixtures_passed: status === "passed" ? 2 : 0,
        failures: [],
        differential_against_implementation_id: null,
      })},
      ${options.author}, ${options.yanked ? new Date() : null})`;
  return id;
}

/** A ReviewProtocol of `publisher` holding `document`. */
export async function seedProtocol(
  sql: Sql,
  publisher: string,
  slug: string,
  document: Record<string, unknown>,
): Promise<string> {
  const id = randomId(IdPrefix.reviewProtocol);
  await sql`
    insert into review_protocols (id, slug, publisher_user_id, content_hash, document)
    values (${id}, ${slug}, ${publisher}, ${hashJson(document)}, ${sql.json(document as never)})`;
  return id;
}

/**
 * A finished run of a Submission by `userId` on a revision (its Attempt and Submission made
 * with it, no artifacts), for reads over runs (leaderboards, listings). Returns the run's id.
 */
export async function seedFinishedRun(
  sql: Sql,
  options: {
    problemId: string;
    revisionId: string;
    contractId: string;
    userId: string;
    result: "verified" | "refuted" | "inconclusive" | "error";
    score?: number | null;
    finishedAt?: Date;
    revokedBy?: string;
  },
): Promise<string> {
  const attemptId = randomId(IdPrefix.attempt);
  await sql`
    insert into attempts (id, problem_id, problem_revision_id, user_id)
    values (${attemptId}, ${options.problemId}, ${options.revisionId}, ${options.userId})`;
  const submissionId = randomId(IdPrefix.submission);
  await sql`
    insert into submissions (id, attempt_id, user_id, problem_id, problem_revision_id, artifacts)
    values (${submissionId}, ${attemptId}, ${options.userId}, ${options.problemId}, ${options.revisionId}, '[]'::jsonb)`;
  const runId = randomId(IdPrefix.verificationRun);
  const finishedAt = options.finishedAt ?? new Date();
  const revocation = options.revokedBy
    ? sql.json({
        revoked_at: finishedAt.toISOString(),
        revoked_by_user_id: options.revokedBy,
        reason_md: "A broken checker.",
      })
    : null;
  await sql`
    insert into verification_runs (id, submission_id, problem_revision_id, verifier_contract_id, trigger, inputs,
      status, result, score, started_at, finished_at, revocation)
    values (${runId}, ${submissionId}, ${options.revisionId}, ${options.contractId}, 'submission',
      ${sql.json({ artifacts: [], summary_included: false })}, 'finished', ${options.result}, ${options.score ?? null},
      ${finishedAt}, ${finishedAt}, ${revocation})`;
  return runId;
}
