import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { hostname } from "node:os";
import {
  type FetchGitCommitOptions,
  openServiceClient,
  type RetryOptions,
  type ServiceClient,
} from "@svc/app";
import postgres from "postgres";
import { type Context, createNodeMiddleware, Probot } from "probot";
import { appOctokit } from "./app-octokit.ts";
import { checkCommit } from "./check-commit.ts";
import type { Octokit } from "./check-runs.ts";
import { type CommitTarget, commitTarget } from "./commit-target.ts";
import { type DeliveryLedger, memoryDeliveryLedger } from "./delivery-ledger.ts";
import { migrateAppDatabase } from "./migrate-app-database.ts";
import { postgresDeliveryLedger } from "./postgres-delivery-ledger.ts";
import { PUBLISH_CHECK, publishCommit } from "./publish-commit.ts";
import { type AppConfig, serviceTokenFor } from "./read-app-config.ts";
import { type SerializeByKey, serializeAcrossReplicas, serializeByKey } from "./serialize-by-key.ts";

export interface GitHubAppOptions {
  /** isomorphic-git's HTTP client for fetching commits; node's by default. */
  http?: FetchGitCommitOptions["http"];
  /** Retries of service calls (tests pass a sleep that returns at once). */
  retry?: RetryOptions;
  /** Octokit's rate-limit throttling (on by default; it spaces writes about a second apart). */
  throttle?: boolean;
  logLevel?: "trace" | "debug" | "info" | "warn" | "error" | "fatal";
}

export interface GitHubApp {
  /** The Node HTTP handler of the webhook endpoint; resolves false for other paths. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Resolves once every delivery taken so far is fully handled. */
  settled(): Promise<void>;
  /** Waits for the deliveries taken, then releases the App's database pool. */
  close(): Promise<void>;
}

/** The webhook events the App acts on (docs/github-app.md). */
const EVENTS = [
  "pull_request.opened",
  "pull_request.synchronize",
  "pull_request.reopened",
  "push",
  "check_suite.requested",
  "check_suite.rerequested",
  "check_run.rerequested",
] as const;

/**
 * The GitHub App: probot verifies each delivery's `X-Hub-Signature-256` against the webhook
 * secret (an unsigned or forged delivery is answered 400 or 401 and reaches no handler), obtains
 * installation tokens with a JWT signed by the App's key from `config.githubApiUrl`, and hands
 * each event here. Pull requests, pushes and check suites are checked (one check run per
 * package); a push to the default branch is also published; a re-requested run is redone.
 */
export async function createGitHubApp(config: AppConfig, options: GitHubAppOptions = {}): Promise<GitHubApp> {
  const probot = new Probot({
    appId: config.appId,
    privateKey: config.privateKey,
    secret: config.webhookSecret,
    baseUrl: config.githubApiUrl,
    logLevel: options.logLevel ?? "info",
    Octokit: appOctokit({ throttle: options.throttle ?? true }),
  });
  const { ledger, serialize } = await openReplicaState(config);
  const inFlight = new Set<Promise<void>>();

  const handleEvent = async (context: Context, force: boolean) => {
    const target = commitTarget(context.name, context.payload as unknown as Record<string, unknown>);
    if (!target) return;
    const installationId = (context.payload as { installation?: { id: number } }).installation?.id;
    const publish = wantsPublish(context, target);
    const run = async () => {
      const octokit = context.octokit as unknown as Octokit;
      const { token } = (await octokit.auth({ type: "installation" })) as { token: string };
      const client = openClient(config, installationId);
      try {
        const deps = {
          octokit,
          appId: config.appId,
          gitToken: token,
          client,
          http: options.http,
          retry: options.retry,
        };
        if (publish && client) {
          const status = await publishCommit(target, { ...deps, client, deliveryId: context.id }, { force });
          context.log.info({ sha: target.sha, status }, "publish");
        } else {
          const checked = await checkCommit(target, deps, { force });
          context.log.info({ sha: target.sha, packages: checked.packages.length }, "checked");
        }
      } finally {
        await client?.close();
      }
    };
    const taken = await ledger.take(context.id, () =>
      serialize(`${target.owner}/${target.repo}@${target.sha}`, run),
    );
    if (!taken.first) context.log.info({ delivery: context.id }, "delivery already taken; nothing new");
    inFlight.add(taken.done);
    try {
      await taken.done;
    } finally {
      inFlight.delete(taken.done);
    }
  };

  const handle = await createNodeMiddleware(
    (app: Probot) => {
      app.on([...EVENTS], async (context) => {
        const rerequested = (context.payload as { action?: string }).action === "rerequested";
        await handleEvent(context as unknown as Context, rerequested);
      });
    },
    { probot, webhooksPath: config.webhookPath },
  );
  const settled = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };
  return {
    handle: async (req, res) => Boolean(await handle(req, res)),
    settled,
    async close() {
      await settled();
      await ledger.close();
    },
  };
}

/**
 * What the App's replicas share: with `DATABASE_URL`, the delivery ledger and the commit locks in
 * PostgreSQL (its own schema, migrated here), so any number of replicas take deliveries behind
 * one load balancer; without it, one replica's in-memory ledger and locks.
 */
async function openReplicaState(
  config: AppConfig,
): Promise<{ ledger: DeliveryLedger; serialize: SerializeByKey }> {
  if (!config.databaseUrl) return { ledger: memoryDeliveryLedger(), serialize: serializeByKey() };
  const sql = postgres(config.databaseUrl, { max: 20, onnotice: () => {} });
  try {
    await migrateAppDatabase(sql);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  const replicaId = `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`;
  return { ledger: postgresDeliveryLedger(sql, { replicaId }), serialize: serializeAcrossReplicas(sql) };
}

/** Publishing happens on a push to the default branch, and when its `svc/publish` run is re-requested. */
function wantsPublish(context: Context, target: CommitTarget): boolean {
  if (!target.onDefaultBranch) return false;
  if (context.name === "push") return true;
  if (context.name === "check_run") {
    return (context.payload as { check_run: { name: string } }).check_run.name === PUBLISH_CHECK;
  }
  return false;
}

function openClient(config: AppConfig, installationId: number | undefined): ServiceClient | null {
  const token = serviceTokenFor(config, installationId);
  if (!config.serviceUrl || !token) return null;
  return openServiceClient({ server: config.serviceUrl, token });
}
