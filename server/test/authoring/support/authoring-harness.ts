import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { memoryTree, sha256, zipTree } from "@svc/app";
import type { Access, PublishResult } from "@svc/schemas";
import { publishAuthoringUpload } from "../../../src/authoring/publish-authoring-upload.ts";
import { requestAuthoringUpload } from "../../../src/authoring/request-authoring-upload.ts";
import {
  type ValidatedUpload,
  validateAuthoringUpload,
} from "../../../src/authoring/validate-authoring-upload.ts";
import type { Pool } from "../../../src/core/db/connect-sql.ts";
import type { Services } from "../../../src/core/services/services.ts";
import { type App, buildApp } from "../../../src/edges/cli/build-app.ts";
import { addUser } from "../../../src/users/add-user.ts";
import { authenticate } from "../../../src/users/authenticate.ts";
import { grantAccess } from "../../../src/users/grant-access.ts";
import { issueToken } from "../../../src/users/issue-token.ts";
import type { Principal } from "../../../src/users/principal.ts";

/** A package as files, path to content. */
export type Files = Record<string, string | Uint8Array>;

const fixtures = new URL("../../../../app/test/fixtures/lint/", import.meta.url).pathname;

/** The files of one of the linter's fixture packages (app/test/fixtures/lint/<name>). */
export function fixturePackage(name: string): Files {
  const dir = join(fixtures, name);
  const files: Files = {};
  const walk = (prefix: string) => {
    for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else files[path] = readFileSync(join(dir, path));
    }
  };
  walk("");
  return files;
}

/** A copy of `files` with one JSON file changed by `edit`. */
export function editJson(files: Files, path: string, edit: (value: Record<string, unknown>) => void): Files {
  const value = JSON.parse(Buffer.from(files[path]!).toString("utf8"));
  edit(value);
  return { ...files, [path]: JSON.stringify(value, null, 2) };
}

/**
 * valid-builtin-sat with valid-review's review stage (and its protocol) after the SAT stage: a run
 * is verified once the checker passes and the reviewers accept.
 */
export function satWithReviewStage(): Files {
  const review = fixturePackage("valid-review");
  return editJson(
    { ...fixturePackage("valid-builtin-sat"), "review-protocol.json": review["review-protocol.json"]! },
    "verifier-contract.json",
    (contract) => {
      const reviewStage = JSON.parse(Buffer.from(review["verifier-contract.json"]!).toString("utf8"))
        .stages[0];
      (contract.stages as unknown[]).push(reviewStage);
    },
  );
}

/** The answer on which sleepyScript's checker sleeps. */
export const SLOW_ANSWER = "424242";

/**
 * valid-script as Problem `sleepy-root`, whose checker sleeps `seconds` on SLOW_ANSWER (and
 * answers as before otherwise), with a 120 s stage timeout: a run can be caught mid-stage.
 */
export function sleepyScript(seconds: number): Files {
  const base = fixturePackage("valid-script");
  const checker = Buffer.from(base["checker.py"]!).toString("utf8");
  const sleepy = checker.replace(
    "    if value * value == TARGET:",
    `    if value == ${SLOW_ANSWER}:\n        import time\n        time.sleep(${seconds})\n    if value * value == TARGET:`,
  );
  const files = editJson({ ...base, "checker.py": sleepy }, "verifier-contract.json", (contract) => {
    (contract.stages as { limits: Record<string, number> }[])[0]!.limits = { timeout_seconds: 120 };
  });
  return editJson(files, "problem.json", (problem) => {
    problem.slug = "sleepy-root";
  });
}

/** The deterministic ZIP `svc upload` would send. */
export async function zipFiles(files: Files): Promise<Buffer> {
  return await zipTree(memoryTree(files));
}

let handles = 0;

/**
 * A new user with a contribute token (or `scopes`), the given capabilities and administrator
 * role, as the principal their token authenticates to.
 */
export async function newUser(
  sql: Pool,
  options: { capabilities?: Access[]; admin?: boolean; scopes?: string[]; handle?: string } = {},
): Promise<Principal> {
  handles += 1;
  const handle = options.handle ?? `user-${handles}-${Math.random().toString(36).slice(2, 8)}`;
  const user = await addUser(sql, { handle, isAdmin: options.admin ?? false });
  for (const capability of options.capabilities ?? []) {
    await grantAccess(sql, user.id, capability);
  }
  const issued = await issueToken(sql, handle, options.scopes ?? ["contribute"]);
  return (await authenticate(sql, issued.token))!;
}

/** An author: a user holding the author capability. */
export function newAuthor(sql: Pool, options: { admin?: boolean } = {}): Promise<Principal> {
  return newUser(sql, { capabilities: ["author"], ...options });
}

/** PUTs bytes to an absolute upload URL through the real HTTP app. */
export async function putUpload(
  app: App,
  uploadUrl: string,
  bytes: Uint8Array,
  contentType = "application/zip",
) {
  const url = new URL(uploadUrl, "http://svc.test");
  return await app.inject({
    method: "PUT",
    url: `${url.pathname}${url.search}`,
    headers: { "content-type": contentType },
    payload: Buffer.from(bytes),
  });
}

/** Requests an upload for `bytes` and PUTs them; returns the upload id. */
export async function uploadBytes(services: Services, principal: Principal, bytes: Uint8Array, app?: App) {
  const requested = await requestAuthoringUpload(services, principal, {
    size_bytes: bytes.byteLength,
    content_hash: sha256(bytes),
  });
  const server = app ?? buildApp(services);
  try {
    const response = await putUpload(server, requested.upload_url, bytes);
    if (response.statusCode !== 200) throw new Error(`PUT answered ${response.statusCode}: ${response.body}`);
  } finally {
    if (!app) await server.close();
  }
  return requested.upload_id;
}

/** Uploads and validates a package. */
export async function uploadAndValidate(
  services: Services,
  principal: Principal,
  files: Files,
): Promise<ValidatedUpload> {
  const uploadId = await uploadBytes(services, principal, await zipFiles(files));
  return await validateAuthoringUpload(services, principal, { upload_id: uploadId });
}

/** Uploads, validates and publishes a package; fails the test if validation finds anything. */
export async function publishFiles(
  services: Services,
  principal: Principal,
  files: Files,
): Promise<PublishResult & { upload_id: string; validation: ValidatedUpload }> {
  const validation = await uploadAndValidate(services, principal, files);
  if (!validation.valid) {
    throw new Error(
      `validation failed: ${JSON.stringify({ errors: validation.errors, r: validation.reconciliation })}`,
    );
  }
  const result = await publishAuthoringUpload(services, principal, {
    upload_id: validation.upload_id,
    plan_hash: validation.plan_hash!,
  });
  return { ...result, upload_id: validation.upload_id, validation };
}

/** Counts the rows of each published record table, to show what a call created. */
export async function recordCounts(sql: Pool): Promise<Record<string, number>> {
  const [row] = await sql<Record<string, number>[]>`
    select
      (select count(*)::int from campaigns) as campaigns,
      (select count(*)::int from problems) as problems,
      (select count(*)::int from problem_revisions) as problem_revisions,
      (select count(*)::int from skill_versions) as skill_versions,
      (select count(*)::int from review_protocols) as review_protocols,
      (select count(*)::int from verifier_contracts) as verifier_contracts,
      (select count(*)::int from verifier_implementations) as verifier_implementations,
      (select count(*)::int from work_audit) as work_audit`;
  return row!;
}
