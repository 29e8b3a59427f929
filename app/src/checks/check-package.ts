import { ServiceCallError } from "../client/service-call-error.ts";
import type { ServiceClient } from "../client/service-client.ts";
import type { RetryOptions } from "../client/with-retries.ts";
import type { LintReport } from "../plan/lint-package.ts";
import { lintPackage } from "../plan/lint-package.ts";
import { type FileTree, TreeError } from "../tree/file-tree.ts";
import { type PackageValidation, validatePackage } from "./validate-package.ts";

/** What the service said about a package, or why it could not say. */
export type ServiceVerdict =
  | { ok: true; result: PackageValidation }
  | { ok: false; code: string; message: string };

/** The check of one package of a repository: lint, then the service's reconciliation. */
export interface PackageCheck {
  /** The package directory relative to the repository root; "." for the root. */
  dir: string;
  /** The package's files; null when they could not be read as a package (a link inside, say). */
  tree: FileTree | null;
  lint: LintReport;
  /** null when no service was asked (none configured, or lint failed). */
  service: ServiceVerdict | null;
}

export interface CheckPackageOptions {
  /** The service to validate with; lint only without one. */
  client?: ServiceClient;
  now?: Date;
  retry?: RetryOptions;
  /**
   * Told while the service runs the package's conformance fixtures (queued in its sandbox
   * budget): at once, then every CONFORMANCE_POLL_MS, until they finish or CONFORMANCE_WAIT_MS.
   */
  onConformanceWait?: (dir: string, waitedMs: number) => void;
}

/**
 * Checks one package: opens it (a tree that cannot be a package, with a symbolic link inside for
 * example, is reported as a lint error on the offending file, as `svc lint` does), lints it, and
 * when lint is clean and a client is given, asks the service to validate it. A refusal or an
 * unavailable service is recorded, not thrown, so one package's trouble never hides another's.
 */
export async function checkPackage(
  dir: string,
  open: () => Promise<FileTree>,
  options: CheckPackageOptions = {},
): Promise<PackageCheck> {
  let tree: FileTree;
  try {
    tree = await open();
  } catch (error) {
    if (!(error instanceof TreeError)) throw error;
    const record = {
      file: error.entry ?? ".",
      path: "",
      code: "unknown_file" as const,
      message: error.message,
    };
    const lint = { ok: false, errors: [record], notes: [], plan: null, plan_hash: null, fixes: [] };
    return { dir, tree: null, lint, service: null };
  }
  const lint = await lintPackage(tree, { now: options.now });
  const check: PackageCheck = { dir, tree, lint, service: null };
  const onWait = options.onConformanceWait;
  return options.client
    ? askService(check, options.client, options.retry, onWait && ((waited) => onWait(dir, waited)))
    : check;
}

/**
 * Adds the service's verdict to a linted check: the package validated (never published) when lint
 * is clean; unchanged when lint failed or the tree could not be read.
 */
export async function askService(
  check: PackageCheck,
  client: ServiceClient,
  retry?: RetryOptions,
  onConformanceWait?: (waitedMs: number) => void,
): Promise<PackageCheck> {
  if (!check.tree || !check.lint.ok || !check.lint.plan) return check;
  try {
    const result = await validatePackage(client, check.tree, check.lint.plan, {
      ...(retry ? { retry } : {}),
      ...(onConformanceWait ? { onConformanceWait } : {}),
    });
    return { ...check, service: { ok: true, result } };
  } catch (error) {
    if (!(error instanceof ServiceCallError)) throw error;
    return { ...check, service: { ok: false, code: error.code, message: error.message } };
  }
}
