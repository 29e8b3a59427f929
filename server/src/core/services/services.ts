import type { Logger } from "pino";
import type { BlobStore } from "../blobs/blob-store.ts";
import type { Pool } from "../db/connect-sql.ts";
import type { SigningSecret } from "../signing/signing-key.ts";
import type { Clock } from "../time/clock.ts";
import type { GitHubSignInSettings } from "./github-sign-in-settings.ts";
import type { HostedReviewers } from "./hosted-reviewer.ts";
import type { SandboxBudgetSettings } from "./sandbox-budget.ts";
import type { SandboxRunner } from "./sandbox-runner.ts";

/**
 * Everything a route, a tool or a domain function reaches outside its arguments. One object is
 * built at start (openServices) and passed down; tests build theirs over a test database, a
 * temporary blob directory and a fixed clock. Nothing here holds per-request state, so any number
 * of server replicas can run over one database and one blob store.
 */
export interface Services {
  sql: Pool;
  blobs: BlobStore;
  /** Signs `/dl/` download and `/up/` upload URLs; the same on every replica. */
  signingSecret: SigningSecret;
  /** `SVC_BASE_URL` without a trailing slash; undefined: each request's own origin. */
  baseUrl: string | undefined;
  clock: Clock;
  log: Logger;
  /** Runs sandbox checkers (verification runs, conformance fixtures), queued for the host's budget. */
  sandbox: SandboxRunner;
  /** The sandbox budget `sandbox` queues for, and the SVC_MAX_* ceilings validation enforces. */
  sandboxBudget: SandboxBudgetSettings;
  /** Invokes the hosted agent reviewers of review protocols' agent nodes. */
  hostedReviewers: HostedReviewers;
  /**
   * `SVC_OAUTH_ALLOW_LOOPBACK_CLIENTS=1`, for tests only: the authorization server fetches client
   * metadata documents from loopback addresses with self-signed certificates.
   */
  allowLoopbackOAuthClients?: boolean;
  /**
   * `SVC_WEBHOOK_ALLOW_LOOPBACK=1`, for tests only: event webhooks may be `http://` and reach
   * loopback addresses (never private or link-local ones).
   */
  allowLoopbackWebhooks?: boolean;
  /**
   * `SVC_ATTESTATION_KEY`: an Ed25519 PKCS#8 PEM the service signs attestations and checkpoints
   * with instead of the key it keeps in the database (docs/attestations.md "Keys"). A secret:
   * never logged, never stored.
   */
  attestationKeyPem?: string | undefined;
  /** `SVC_EVENT_RETENTION_DAYS`, default 30: how long the event log keeps an event (events/prune-events.ts). */
  eventRetentionDays?: number;
  /** Sign in with GitHub (SVC_GITHUB_CLIENT_ID and _SECRET); undefined: not offered. */
  githubSignIn?: GitHubSignInSettings | undefined;
}
