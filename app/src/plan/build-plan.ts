import type { Plan } from "@svc/schemas";
import { publishedSkills } from "../lint/check-revision.ts";
import type { CheckedProblem, CleanLintResult } from "../lint/lint-result.ts";

/**
 * The plan (spec 4.2), computed from files only: the campaign, every content-addressed object
 * keyed by its content hash, and one entry per problem in slug order. It names no server state,
 * so the same files plan the same everywhere; the service reconciles it against what is live.
 * Pure: it reads only the entries a clean lint result checked.
 */
export function buildPlan(lint: CleanLintResult): Plan {
  const input = lint.checked;
  const skills: Plan["skills"] = {};
  for (const skill of input.skills) {
    skills[skill.contentHash] = {
      content_hash: skill.contentHash,
      name: skill.name,
      description: skill.description,
      files: skill.files,
    };
  }
  const review_protocols: Plan["review_protocols"] = {};
  for (const protocol of input.protocols) {
    review_protocols[protocol.contentHash] = {
      content_hash: protocol.contentHash,
      document: protocol.document,
    };
  }
  const verifier_contracts: Plan["verifier_contracts"] = {};
  const verifier_implementations: Plan["verifier_implementations"] = {};
  for (const contract of input.contracts) {
    verifier_contracts[contract.contentHash] = {
      content_hash: contract.contentHash,
      document: contract.document,
    };
    for (const impl of contract.implementations) {
      verifier_implementations[impl.contentHash] ??= {
        content_hash: impl.contentHash,
        runtime: impl.runtime,
        entrypoint: impl.entrypoint,
        limits: impl.limits,
        program: impl.program,
        // Only when stated, so packages without it keep their plan and plan_hash.
        ...(impl.source ? { source: impl.source } : {}),
        stages: [],
      };
      verifier_implementations[impl.contentHash]!.stages.push({
        verifier_contract: contract.contentHash,
        stage_key: impl.stageKey,
      });
    }
  }
  for (const impl of Object.values(verifier_implementations)) {
    impl.stages.sort((a, b) =>
      compare(`${a.verifier_contract}/${a.stage_key}`, `${b.verifier_contract}/${b.stage_key}`),
    );
  }

  const problems = input.problems.map((p) => planProblem(p)).sort((a, b) => compare(a.slug, b.slug));
  const campaign = input.campaign
    ? {
        slug: input.campaign.slug,
        title: input.campaign.title,
        summary: input.campaign.summary,
        description_md: input.campaign.description_md,
        status: input.campaign.status,
      }
    : null;
  return { campaign, skills, review_protocols, verifier_contracts, verifier_implementations, problems };
}

function planProblem(p: CheckedProblem): Plan["problems"][number] {
  const { problem, contract } = p;
  const protocol = contract ? [...contract.protocols.values()][0] : undefined;
  return {
    dir: p.prefix === "" ? "." : p.prefix.slice(0, -1),
    slug: problem.slug,
    structure: problem.structure,
    title: problem.title,
    summary: problem.summary,
    priority_weight: problem.priority_weight,
    campaign_slug: p.campaignSlug,
    statement_md: p.statementMd,
    benchmark: problem.benchmark ?? null,
    revision_note: problem.revision_note ?? null,
    skills: [...p.skills]
      .sort((a, b) => compare(a.name, b.name))
      .map((s) => ({ skill: s.contentHash, requirement: "required" as const })),
    published_skills: publishedSkills(problem),
    reference_inputs: p.bindings.map((b) => ({
      key: b.key,
      filename: b.filename,
      media_type: b.media_type,
      content_hash: b.content_hash,
      size_bytes: b.size_bytes,
      url: b.url,
      sealed: b.sealed,
    })),
    verifier_contract: contract?.contentHash ?? null,
    published_verifier_contract: problem.verifier_contract ?? null,
    verifier_implementations: (contract?.implementations ?? []).map((i) => i.contentHash).sort(compare),
    review_protocol: protocol?.contentHash ?? null,
    sealing: problem.sealing ?? null,
  };
}

/** Byte-order comparison, independent of locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
