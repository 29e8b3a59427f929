import { readFile } from "node:fs/promises";
import { join, posix, resolve } from "node:path";
import {
  type CheckAnnotation,
  CONFORMANCE_WAIT_MS,
  checkAnnotations,
  checkConclusion,
  checkCounts,
  checkRepository,
  formatCheckSummary,
  hashJson,
  openDirectoryTree,
  openServiceClient,
  type PackageCheck,
  type PublishOutcome,
  publishValidated,
  type RetryOptions,
  type ServiceClient,
} from "@svc/app";
import { changesSomething } from "@svc/schemas";
import { listRepositoryFiles } from "./list-repository-files.ts";
import { type ActionInputs, InputError, readInputs } from "./read-inputs.ts";

/** What the Action does to the outside world: @actions/core in production, a recorder in tests. */
export interface ActionIo {
  getInput(name: string): string;
  setOutput(name: string, value: string): void;
  annotate(
    level: "error" | "warning" | "notice",
    message: string,
    at: { file: string; line: number; title: string },
  ): void;
  info(text: string): void;
  /** Appends Markdown to the job summary. */
  summary(markdown: string): Promise<void>;
  setFailed(message: string): void;
  /** The workspace the `path` input is relative to. */
  cwd: string;
  retry?: RetryOptions;
}

/** GitHub keeps at most 1 MiB of job summary per step; the Action stays well inside. */
const SUMMARY_MAX_BYTES = 900 * 1024;

/**
 * The Action: finds the packages under `path` (svc.json, else the layout rule), lints each, asks
 * the service for the reconciliation when `server-url` and `token` are set, and with `publish`
 * publishes every package whose reconciliation changes something, once everything is clean.
 * Writes an annotation per finding (`::error file=...,line=...` for every error), the plan and
 * reconciliation to the job summary, and the outputs; fails the step on lint or validation errors,
 * conflicts, a checker failing its own conformance fixtures (published all the same, like svc
 * draft), a failed publication, or warnings with `fail-on-warnings`. Returns whether it passed.
 */
export async function runAction(io: ActionIo): Promise<boolean> {
  let inputs: ActionInputs;
  try {
    inputs = readInputs((name) => io.getInput(name));
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    io.setFailed(error.message);
    return false;
  }
  const root = resolve(io.cwd, inputs.path);
  const client =
    inputs.serverUrl && inputs.token
      ? openServiceClient({ server: inputs.serverUrl, token: inputs.token })
      : null;
  try {
    return await check(io, inputs, root, client);
  } finally {
    await client?.close();
  }
}

async function check(
  io: ActionIo,
  inputs: ActionInputs,
  root: string,
  client: ServiceClient | null,
): Promise<boolean> {
  const listed = listRepositoryFiles(root);
  const repository = { paths: () => listed, read: (path: string) => readFile(join(root, path)) };
  const repo = await checkRepository(repository, (dir) => openDirectoryTree(join(root, dir)), {
    client: client ?? undefined,
    retry: io.retry,
    // At once, then every 30 s: the log says why the step is still running.
    onConformanceWait: (dir, waited) => {
      if (waited % 30_000 !== 0) return;
      io.info(
        `${dir}: the service runs this package's conformance fixtures in its sandbox queue; waited ${Math.round(waited / 1000)} s of at most ${CONFORMANCE_WAIT_MS / 1000} s`,
      );
    },
  });
  // Paths as the workflow sees them: relative to the workspace, `path` included.
  const at = (path: string) => posix.normalize(posix.join(inputs.path.replaceAll("\\", "/"), path));
  const annotate = (a: CheckAnnotation) =>
    io.annotate(a.level === "failure" ? "error" : a.level, a.message, {
      file: a.path,
      line: a.line,
      title: a.title,
    });

  const sections: string[] = ["## svc", ""];
  if (repo.discoveryErrors.length > 0) {
    for (const e of repo.discoveryErrors) {
      annotate({ path: at(e.file), line: 1, level: "failure", title: e.code, message: e.message });
      sections.push(`- \`${e.file}\` ${e.path} [${e.code}] ${e.message}`);
    }
    await io.summary(sections.join("\n"));
    writeOutputs(io, [], { ok: false, published: 0 });
    io.setFailed("svc.json does not list the packages correctly");
    return false;
  }
  if (repo.packages.length === 0)
    sections.push(`No package under \`${inputs.path}\` (no campaign.json or problem.json).`, "");

  const budget = Math.floor(SUMMARY_MAX_BYTES / Math.max(1, repo.packages.length)) - 1024;
  for (const pkg of repo.packages) {
    const shown = { ...pkg, dir: at(pkg.dir) };
    const annotations = await checkAnnotations(shown);
    for (const a of annotations) annotate(a);
    sections.push(
      formatCheckSummary(shown, annotations, {
        maxBytes: budget,
        fullReport: `\`npx svc lint ${shown.dir} --json\``,
      }),
      "",
    );
  }

  const failed = repo.packages.filter((p) => checkConclusion(p) === "failure");
  const counts = repo.packages.map(checkCounts);
  const warnings = counts.reduce((n, c) => n + c.warnings, 0);
  let published = 0;
  let publishFailed: string | null = null;
  if (inputs.publish && client) {
    // A checker that fails its own fixtures fails the step but does not stop publication, as with
    // svc draft and the App: it is published, inspectable, and never becomes current (spec 2.2).
    const unpublishable = repo.packages.filter(
      (p) => !p.lint.ok || !p.service?.ok || !p.service.result.valid,
    );
    if (unpublishable.length > 0) {
      publishFailed = "nothing published: lint, validation or the service stopped it";
      sections.push(`**Nothing published**: every package must lint clean and validate first.`, "");
    } else {
      const rows: string[] = [
        "### Published",
        "",
        "| package | problem | action | revision | problem id |",
        "| --- | --- | --- | --- | --- |",
      ];
      for (const pkg of repo.packages) {
        const outcome = await publishChanged(client, pkg, io.retry);
        if (outcome === null) continue;
        if (!outcome.ok) {
          publishFailed = `publishing ${pkg.dir} failed: [${outcome.code}] ${outcome.message}`;
          rows.push(
            `| \`${pkg.dir}\` | | **failed** | | [${outcome.code}] ${outcome.message.replace(/\s+/g, " ")} |`,
          );
          break;
        }
        for (const p of outcome.problems) {
          rows.push(
            `| \`${pkg.dir}\` | \`${p.slug}\` | ${p.action} | ${p.revision_number} | \`${p.problem_id}\` |`,
          );
          if (p.action !== "noop") published++;
        }
      }
      sections.push(...rows, "");
    }
  }
  await io.summary(sections.join("\n"));
  const ok = failed.length === 0 && publishFailed === null && !(inputs.failOnWarnings && warnings > 0);
  writeOutputs(io, repo.packages, { ok, published });

  for (const pkg of repo.packages) {
    const c = checkCounts(pkg);
    io.info(
      `svc ${pkg.dir}: ${checkConclusion(pkg)} (${c.problems} problems, ${c.errors} errors, ${c.warnings} warnings)`,
    );
  }
  if (failed.length > 0)
    io.setFailed(
      `svc: ${failed.map((p) => p.dir).join(", ")} failed; see the annotations and the job summary`,
    );
  else if (publishFailed !== null) io.setFailed(`svc: ${publishFailed}`);
  else if (inputs.failOnWarnings && warnings > 0)
    io.setFailed(`svc: ${warnings} warnings and fail-on-warnings is set`);
  return ok;
}

/**
 * Publishes a package whose reconciliation changes something (null when nothing would change),
 * through the publish engine, with the plan_hash the Action's own lint computed: the service must
 * plan the files it receives to the same one, or nothing is published (`stale_plan_hash`).
 */
async function publishChanged(
  client: ServiceClient,
  pkg: PackageCheck,
  retry?: RetryOptions,
): Promise<PublishOutcome | null> {
  if (!pkg.service?.ok || !pkg.lint.plan_hash || !pkg.tree) return null;
  if (!changesSomething(pkg.service.result.validation.reconciliation)) return null;
  const linted = pkg.lint.plan_hash;
  return publishValidated(
    client,
    { tree: pkg.tree, validated: pkg.service.result },
    { reviewed: linted, linted },
    retry,
  );
}

/**
 * The outputs: `ok`, `plan-hash` (the package's plan_hash; with several packages, the sha256 of
 * the canonical JSON of `plan-hashes`), `plan-hashes` (JSON, package directory to plan_hash),
 * `packages`, `problems`, `errors`, `warnings`, `published` and one count per action.
 */
function writeOutputs(
  io: ActionIo,
  packages: readonly PackageCheck[],
  result: { ok: boolean; published: number },
): void {
  const hashes = Object.fromEntries(packages.map((p) => [p.dir, p.lint.plan_hash]));
  const counts = packages.map(checkCounts);
  const sum = (key: keyof (typeof counts)[number]) => String(counts.reduce((n, c) => n + c[key], 0));
  const complete = packages.length > 0 && packages.every((p) => p.lint.plan_hash !== null);
  io.setOutput("ok", String(result.ok));
  io.setOutput(
    "plan-hash",
    !complete ? "" : packages.length === 1 ? packages[0]!.lint.plan_hash! : hashJson(hashes),
  );
  io.setOutput("plan-hashes", JSON.stringify(hashes));
  io.setOutput("packages", String(packages.length));
  for (const key of [
    "problems",
    "errors",
    "warnings",
    "create",
    "update",
    "revise",
    "noop",
    "conflict",
  ] as const) {
    io.setOutput(key, sum(key));
  }
  io.setOutput("published", String(result.published));
}
