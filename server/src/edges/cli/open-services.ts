import { hostname } from "node:os";
import { dirname, join } from "node:path";
import type { Logger } from "pino";
import type { BlobStore } from "../../core/blobs/blob-store.ts";
import { meteredBlobStore } from "../../core/blobs/metered-blob-store.ts";
import { openLocalBlobStore } from "../../core/blobs/open-local-blob-store.ts";
import { openS3BlobStore, type S3BlobStoreSettings } from "../../core/blobs/open-s3-blob-store.ts";
import type { Pool } from "../../core/db/connect-sql.ts";
import { githubSignInFromEnv } from "../../core/services/github-sign-in-settings.ts";
import { hostSandboxLeases } from "../../core/services/host-sandbox-leases.ts";
import type { HostedReviewers } from "../../core/services/hosted-reviewer.ts";
import {
  budgetedSandboxRunner,
  type SandboxBudgetSettings,
  sandboxBudgetFromEnv,
} from "../../core/services/sandbox-budget.ts";
import type { SandboxRunner } from "../../core/services/sandbox-runner.ts";
import type { Services } from "../../core/services/services.ts";
import { loadSigningSecret } from "../../core/signing/load-signing-secret.ts";
import { type Clock, systemClock } from "../../core/time/clock.ts";
import { DEFAULT_EVENT_RETENTION_DAYS } from "../../events/prune-events.ts";
import { hostedReviewersFromEnv } from "../../reviews/agents/hosted-reviewers-from-env.ts";
import { unavailableHostedReviewers } from "../../reviews/agents/unavailable-hosted-reviewers.ts";
import { localSandboxRunner } from "../../verification/local-sandbox-runner.ts";
import { prepareSandboxRunDirectory } from "../../verification/sandbox-run-directory.ts";
import { blobDirectory, type ServerConfig } from "./server-config.ts";

export interface OpenServicesOptions {
  sql: Pool;
  log: Logger;
  clock: Clock;
  /** Blobs live in `<dataDir>/blobs` unless `blobDir` says otherwise. */
  dataDir: string;
  blobDir?: string | undefined;
  /** Blobs on S3-compatible object storage instead (SVC_S3_BUCKET); then `blobDir` is unused. */
  s3?: S3BlobStoreSettings | undefined;
  baseUrl?: string | undefined;
  signingSecret?: string | undefined;
  /** How checkers run; default: this machine's engines. */
  sandbox?: SandboxRunner | undefined;
  /** The sandbox budget and SVC_MAX_* ceilings; default: from `env`. */
  sandboxBudget?: SandboxBudgetSettings | undefined;
  /** Who runs agent review seats; default: from `env` (ANTHROPIC_API_KEY, SVC_ANTHROPIC_BASE_URL). */
  hostedReviewers?: HostedReviewers | undefined;
  /** Where the hosted reviewers' and the sandbox budget's settings are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** The Services a long-running process (`serve`, `worker`) opens over its configuration and the system clock. */
export function openConfiguredServices(sql: Pool, config: ServerConfig, log: Logger): Promise<Services> {
  return openServices({
    sql,
    log,
    clock: systemClock,
    dataDir: config.dataDir,
    blobDir: config.blobDir,
    s3: config.s3,
    baseUrl: config.baseUrl,
    signingSecret: config.signingSecret,
  });
}

/** Builds the Services over a migrated database: the blob store (a directory or a bucket) and the signing secret. */
export async function openServices(options: OpenServicesOptions): Promise<Services> {
  const { sql, log, clock } = options;
  const hostedReviewers = options.hostedReviewers ?? hostedReviewersFromEnv(options.env ?? process.env);
  if (hostedReviewers === unavailableHostedReviewers) {
    log.info("no hosted agent reviewers: ANTHROPIC_API_KEY is unset, so agent review seats cannot run");
  }
  const sandboxBudget = options.sandboxBudget ?? sandboxBudgetFromEnv(options.env ?? process.env);
  return {
    sql,
    log,
    clock,
    blobs: await openBlobStore(options),
    signingSecret: await loadSigningSecret(sql, options.signingSecret),
    baseUrl: options.baseUrl,
    sandbox: budgetedSandboxRunner(
      options.sandbox ?? (await localSandboxRunnerAt(options.dataDir, options.env ?? process.env)),
      sandboxBudget,
      // The budget is the host's: serve and every worker on it share it (SVC_SANDBOX_HOST).
      hostSandboxLeases(sql, sandboxHost(options.env ?? process.env), sandboxBudget),
    ),
    sandboxBudget,
    hostedReviewers,
    allowLoopbackOAuthClients: (options.env ?? process.env).SVC_OAUTH_ALLOW_LOOPBACK_CLIENTS === "1",
    allowLoopbackWebhooks: (options.env ?? process.env).SVC_WEBHOOK_ALLOW_LOOPBACK === "1",
    eventRetentionDays: eventRetentionDays(options.env ?? process.env),
    attestationKeyPem: (options.env ?? process.env).SVC_ATTESTATION_KEY || undefined,
    githubSignIn: githubSignInFromEnv(options.env ?? process.env),
  };
}

/**
 * The process's sandbox runner: run directories where the sandbox user can reach them
 * (prepareSandboxRunDirectory), and runtime images unpacked beside them (SVC_RUNTIME_DIR, else
 * `svc-runtimes` next to the run directory), reachable the same way.
 */
export async function localSandboxRunnerAt(dataDir: string, env: NodeJS.ProcessEnv) {
  const runDir = await prepareSandboxRunDirectory(dataDir, env);
  return localSandboxRunner({
    runDir,
    runtimeDir: env.SVC_RUNTIME_DIR || join(dirname(runDir), "svc-runtimes"),
  });
}

/**
 * SVC_SANDBOX_HOST, default the machine's host name: the processes whose sandboxes share one
 * budget. Containers on one host each have a host name of their own, so set it to the host's.
 */
function sandboxHost(env: NodeJS.ProcessEnv): string {
  const host = env.SVC_SANDBOX_HOST || hostname();
  if (host.length > 255)
    throw new Error(`SVC_SANDBOX_HOST is longer than 255 characters: name the host shorter`);
  return host;
}

/**
 * The deployment's blob store: the bucket when `s3` is set, else `blobDir`, else `<dataDir>/blobs`.
 * Operator commands open it alone, without the rest of the Services.
 */
export async function openBlobStore(
  options: Pick<OpenServicesOptions, "dataDir" | "blobDir" | "s3">,
): Promise<BlobStore> {
  return meteredBlobStore(
    options.s3 ? await openS3BlobStore(options.s3) : openLocalBlobStore(blobDirectory(options)),
  );
}

/** SVC_EVENT_RETENTION_DAYS: a whole number of days, at least 1; default 30. */
function eventRetentionDays(env: NodeJS.ProcessEnv): number {
  const value = env.SVC_EVENT_RETENTION_DAYS;
  if (value === undefined || value === "") return DEFAULT_EVENT_RETENTION_DAYS;
  if (!/^[1-9][0-9]{0,4}$/.test(value)) {
    throw new Error(
      `SVC_EVENT_RETENTION_DAYS must be a whole number of days from 1 to 99999, not "${value}"`,
    );
  }
  return Number(value);
}
