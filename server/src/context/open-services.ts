import { join } from "node:path";
import type { Logger } from "pino";
import { openLocalBlobStore } from "../blobs/open-local-blob-store.ts";
import type { Pool } from "../db/connect-sql.ts";
import { unavailableHostedReviewers } from "../reviews/agents/unavailable-hosted-reviewers.ts";
import type { Clock } from "../time/clock.ts";
import { localSandboxRunner } from "../verification/local-sandbox-runner.ts";
import type { SandboxRunner } from "../verification/sandbox-runner.ts";
import { loadSigningSecret } from "./load-signing-secret.ts";
import type { Services } from "./services.ts";

export interface OpenServicesOptions {
  sql: Pool;
  log: Logger;
  clock: Clock;
  /** Blobs live in `<dataDir>/blobs` unless `blobDir` says otherwise. */
  dataDir: string;
  blobDir?: string | undefined;
  baseUrl?: string | undefined;
  signingSecret?: string | undefined;
  /** How checkers run; default: this machine's engines. */
  sandbox?: SandboxRunner | undefined;
}

/** Builds the Services over a migrated database: the blob store and the signing secret. */
export async function openServices(options: OpenServicesOptions): Promise<Services> {
  const { sql, log, clock } = options;
  return {
    sql,
    log,
    clock,
    blobs: openLocalBlobStore(options.blobDir ?? join(options.dataDir, "blobs")),
    signingSecret: await loadSigningSecret(sql, options.signingSecret),
    baseUrl: options.baseUrl,
    sandbox: options.sandbox ?? localSandboxRunner(),
    hostedReviewers: unavailableHostedReviewers,
  };
}
