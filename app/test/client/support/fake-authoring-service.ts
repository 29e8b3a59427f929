import type { Plan } from "@svc/schemas";
import { ServiceCallError } from "../../../src/client/service-call-error.ts";
import type { Envelope, ServiceClient } from "../../../src/client/service-client.ts";
import { hashJson, sha256 } from "../../../src/hash/sha256.ts";
import { lintPackage } from "../../../src/plan/lint-package.ts";
import { openZipTree } from "../../../src/tree/open-zip-tree.ts";

interface LiveProblem {
  owner: string;
  problem_id: string;
  revision_number: number;
  problem_revision_id: string;
  task: string;
  title: string;
}

interface Upload {
  owner: string;
  size_bytes: number;
  content_hash: string;
  bytes?: Buffer;
  plan?: Plan;
  plan_hash?: string;
  actions?: Map<string, string>;
  published?: Envelope;
}

/**
 * An in-memory authoring service behind the ServiceClient interface, for testing `svc draft`
 * without a database: uploads are linted from their archive like the real validator does, and
 * reconciled by slug (create, noop, update on a title change, revise on a task change, conflict on
 * another owner's slug). `inject` queues failures for the next calls of a tool.
 */
export class FakeAuthoringService {
  problems = new Map<string, LiveProblem>();
  uploads = new Map<string, Upload>();
  calls: string[] = [];
  private injected = new Map<string, ServiceCallError[]>();
  private ids = 0;

  /** The next calls of `tool` ("put" for the PUT) fail with these errors, in order. */
  inject(tool: string, ...errors: ServiceCallError[]): void {
    this.injected.set(tool, [...(this.injected.get(tool) ?? []), ...errors]);
  }

  /** A client acting as `owner`. */
  client(owner = "usr_ada"): ServiceClient {
    return {
      callTool: async (name, input = {}) => {
        this.calls.push(name);
        this.fail(name);
        return this.run(owner, name, input);
      },
      putUpload: async (url, bytes) => {
        this.calls.push("put");
        this.fail("put");
        const upload = this.uploads.get(url.slice("/up/".length));
        if (!upload)
          throw new ServiceCallError("http", "no such upload", {
            transient: false,
            details: { status: 404 },
          });
        if (sha256(bytes) !== upload.content_hash) {
          throw new ServiceCallError("http", "hash mismatch", { transient: false, details: { status: 400 } });
        }
        upload.bytes = Buffer.from(bytes);
      },
      close: async () => {},
    };
  }

  transient(code = "http"): ServiceCallError {
    return new ServiceCallError(code, "injected outage", { transient: true, details: { status: 503 } });
  }

  toolError(code: string, message = code): ServiceCallError {
    return new ServiceCallError(code, message, { transient: false });
  }

  private fail(name: string): void {
    const queue = this.injected.get(name);
    const error = queue?.shift();
    if (error) throw error;
  }

  private id(prefix: string): string {
    this.ids += 1;
    return `${prefix}_${String(this.ids).padStart(4, "0")}`;
  }

  private async run(owner: string, name: string, input: Record<string, unknown>): Promise<Envelope> {
    switch (name) {
      case "request_authoring_upload": {
        const upload_id = this.id("upl");
        this.uploads.set(upload_id, {
          owner,
          size_bytes: input.size_bytes as number,
          content_hash: input.content_hash as string,
        });
        return {
          upload_id,
          upload_url: `/up/${upload_id}`,
          expires_at: "2030-01-01T00:00:00Z",
          max_bytes: 1 << 26,
        };
      }
      case "validate_authoring_upload":
        return this.validate(owner, input.upload_id as string);
      case "publish_authoring_upload":
        return this.publish(owner, input.upload_id as string, input.plan_hash as string);
      case "get_verifier_contract":
        return this.contract(input.verifier_contract_id as string);
      default:
        throw this.toolError("not_found", `no tool ${name}`);
    }
  }

  /** Validations still answering `conformance_state: "pending"`, one fewer each time (queued fixtures). */
  pendingConformance = 0;
  /** Every planned checker fails its first fixture at validation, raising a traceback. */
  failConformance = false;
  /** Published contracts: each stage's implementations, an earlier passed version 1 current. */
  private contracts = new Map<string, Array<{ stage_key: string; content_hash: string }>>();

  /** get_verifier_contract: the implementations of a published contract, version 1 current. */
  private contract(id: string): Envelope {
    const planned = this.contracts.get(id);
    if (!planned) throw this.toolError("not_found", `no verifier contract ${id}`);
    return {
      verifier_contract: { id },
      implementations: planned.flatMap(({ stage_key, content_hash }) => [
        { id: "vfi_passed0001", stage_key, version_number: 1, content_hash: "sha256:earlier", current: true },
        { id: "vfi_failed0002", stage_key, version_number: 2, content_hash, current: false },
      ]),
    };
  }

  /** A failed first fixture of every planned checker stage, as validation lists it. */
  private conformance(plan: Plan): Envelope[] {
    if (!this.failConformance) return [];
    return Object.values(plan.verifier_implementations).flatMap((impl) =>
      impl.stages.map((stage) => ({
        stage_key: stage.stage_key,
        image_ref: impl.runtime.image_ref,
        fixture: "right_answer",
        expected: "verified",
        actual: "error",
        passed: false,
        implementation: impl.content_hash,
        program: impl.program?.filename ?? null,
        detail: "the checker wrote no /output/result.json (the checker exited with code 1)",
        log_tail:
          'Traceback (most recent call last):\n  File "/input/checker/checker.py", line 3, in <module>\nRuntimeError: the checker broke\n',
      })),
    );
  }

  private async validate(owner: string, uploadId: string): Promise<Envelope> {
    const upload = this.uploads.get(uploadId);
    if (!upload?.bytes || upload.owner !== owner) throw this.toolError("not_found", `no upload ${uploadId}`);
    const lint = await lintPackage(await openZipTree(upload.bytes));
    if (!lint.ok || !lint.plan) {
      return {
        valid: false,
        errors: lint.errors,
        notes: lint.notes,
        plan: null,
        plan_hash: null,
        reconciliation: null,
      };
    }
    const counts = { create: 0, update: 0, revise: 0, noop: 0, conflict: 0 };
    const actions = new Map<string, string>();
    const problems = lint.plan.problems.map((p) => {
      const live = this.problems.get(p.slug);
      let action: keyof typeof counts;
      let reason: string | undefined;
      if (!live) action = "create";
      else if (live.owner !== owner) {
        action = "conflict";
        reason = `the slug ${p.slug} belongs to another user`;
      } else if (live.task !== task(p)) action = "revise";
      else if (live.title !== p.title) action = "update";
      else action = "noop";
      counts[action] += 1;
      actions.set(p.slug, action);
      return {
        slug: p.slug,
        action,
        problem_id: live?.problem_id,
        current_revision_id: live?.problem_revision_id,
        next_revision_number: action === "revise" ? live!.revision_number + 1 : undefined,
        reason,
      };
    });
    Object.assign(upload, { plan: lint.plan, plan_hash: lint.plan_hash, actions });
    const campaign = lint.plan.campaign ? { slug: lint.plan.campaign.slug, action: "create" } : null;
    const pending = this.pendingConformance > 0;
    if (pending) this.pendingConformance -= 1;
    return {
      conformance_state: pending ? "pending" : "complete",
      conformance: this.conformance(lint.plan),
      valid: counts.conflict === 0,
      errors: [],
      notes: lint.notes,
      plan: lint.plan,
      plan_hash: lint.plan_hash,
      reconciliation: { campaign, problems, counts, warnings: [] },
    };
  }

  private publish(owner: string, uploadId: string, planHash: string): Envelope {
    const upload = this.uploads.get(uploadId);
    if (!upload?.plan || !upload.actions)
      throw this.toolError("not_found", `upload ${uploadId} is not validated`);
    if (upload.published) return upload.published;
    if (upload.plan_hash !== planHash) throw this.toolError("stale_plan_hash", "validate again");
    const problems = upload.plan.problems.map((p) => {
      const action = upload.actions!.get(p.slug)!;
      let live = this.problems.get(p.slug);
      if (action === "create" || !live) {
        live = {
          owner,
          problem_id: this.id("prb"),
          revision_number: 1,
          problem_revision_id: this.id("prv"),
          task: task(p),
          title: p.title,
        };
        this.problems.set(p.slug, live);
      } else if (action === "revise") {
        Object.assign(live, {
          revision_number: live.revision_number + 1,
          problem_revision_id: this.id("prv"),
          task: task(p),
          title: p.title,
        });
      } else if (action === "update") {
        live.title = p.title;
      }
      return {
        slug: p.slug,
        problem_id: live.problem_id,
        problem_revision_id: live.problem_revision_id,
        revision_number: live.revision_number,
        visibility: "private",
        listed_in_explore: false,
      };
    });
    for (const [hash] of Object.entries(upload.plan.verifier_contracts)) {
      const stages = Object.values(upload.plan.verifier_implementations).flatMap((impl) =>
        impl.stages
          .filter((stage) => stage.verifier_contract === hash)
          .map((stage) => ({ stage_key: stage.stage_key, content_hash: impl.content_hash })),
      );
      this.contracts.set(`vct_${hash.slice(7, 15)}`, stages);
    }
    upload.published = {
      campaign_id: upload.plan.campaign ? "cmp_0001" : undefined,
      problems,
      skill_version_ids: [],
      verifier_contract_ids: Object.keys(upload.plan.verifier_contracts).map((h) => `vct_${h.slice(7, 15)}`),
      verifier_implementation_ids: [],
      review_protocol_ids: [],
      counts: {},
    };
    return upload.published;
  }
}

/** The part of a planned problem a revision is made of (title, summary and weight are not). */
function task(p: Plan["problems"][number]): string {
  const { title: _t, summary: _s, priority_weight: _w, dir: _d, revision_note: _n, ...rest } = p;
  return hashJson(rest);
}
