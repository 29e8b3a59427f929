import type { FileTree } from "../tree/file-tree.ts";
import { checkBindings } from "./check-bindings.ts";
import { checkCeilings } from "./check-ceilings.ts";
import { type ContractEntry, checkContract } from "./check-contract.ts";
import { checkFixtures } from "./check-fixtures.ts";
import { checkProblemFiles } from "./check-problem-files.ts";
import { checkProtocol, type ProtocolEntry } from "./check-protocols.ts";
import { checkRevision } from "./check-revision.ts";
import { checkSealedBytesStaySealed, checkSealing } from "./check-sealing.ts";
import { checkSkills, type SkillEntry } from "./check-skills.ts";
import { LintContext } from "./lint-context.ts";
import type { CheckedPackage, CheckedProblem, LintResult } from "./lint-result.ts";
import { readPackageLayout } from "./package-layout.ts";

export interface LintOptions {
  /** The clock sealing dates are checked against ("future at publication"). */
  now?: Date;
}

/**
 * Lints a package in the spec's order of passes (4.2): (1) problem.json and campaign.json,
 * (2) skills, (3) review protocols, (4) verifier contracts, implementations and fixtures,
 * (5) reference bindings and sealing, (6) the assembled revision. When no pass found an error,
 * the result carries the checked entries that plan/build-plan.ts turns into the plan. Pure in the
 * sense that matters: the same files and clock give the same result.
 *
 * Every independent defect is reported in one run: a problem whose pass 1 failed still has its
 * skills, protocol, contract, fixtures and reference bindings checked, since none of them reads
 * problem.json. What does read it (a pinned published contract, sealing, the assembled revision)
 * is not checked for it, so no error follows only from another (no cascade).
 */
export async function lintTree(tree: FileTree, options: LintOptions = {}): Promise<LintResult> {
  const ctx = new LintContext(tree, options.now ?? new Date());
  // A document over its ceiling stops lint before any file is read: nothing else is worth the memory.
  if (checkCeilings(ctx)) return finish(ctx, null);
  await ctx.prefetch();
  const layout = readPackageLayout(ctx);
  if (!layout) return finish(ctx, null);
  const campaignPrefix = layout.campaignPrefix;

  // Pass 1.
  const { campaign, problems, failed } = await checkProblemFiles(ctx, layout);
  // Every problem folder, those that failed pass 1 included.
  const prefixes = layout.problemPrefixes;

  // Pass 2: a campaign's shared skills/, then each problem's own (which win on a name clash).
  const sharedSkills = campaignPrefix === null ? new Map<string, SkillEntry>() : await checkSkills(ctx, "");
  const skillsOf = new Map<string, Map<string, SkillEntry>>();
  for (const prefix of prefixes) {
    skillsOf.set(prefix, new Map([...sharedSkills, ...(await checkSkills(ctx, prefix))]));
  }

  // Pass 3: the campaign's protocol, then each problem's own.
  const protocolAt = new Map<string, { file: string; entry: ProtocolEntry | undefined }>();
  const addProtocol = async (prefix: string, skills: ReadonlyMap<string, SkillEntry>) => {
    const file = `${prefix}review-protocol.json`;
    if (ctx.has(file)) protocolAt.set(prefix, { file, entry: await checkProtocol(ctx, prefix, skills) });
  };
  if (campaignPrefix !== null) await addProtocol(campaignPrefix, sharedSkills);
  for (const prefix of prefixes) {
    if (prefix !== campaignPrefix) await addProtocol(prefix, skillsOf.get(prefix)!);
  }
  const effectiveProtocol = (prefix: string) =>
    protocolAt.get(prefix) ?? (campaignPrefix === null ? undefined : protocolAt.get(campaignPrefix)) ?? null;

  // Pass 4: contracts (each checked once), then fixtures as each problem sees them.
  const contractAt = new Map<string, ContractEntry | undefined>();
  const contractFor = async (prefix: string) => {
    if (!contractAt.has(prefix))
      contractAt.set(prefix, await checkContract(ctx, prefix, effectiveProtocol(prefix)));
    return contractAt.get(prefix);
  };
  const ownOrCampaignContract = (prefix: string): string | null =>
    ctx.has(`${prefix}verifier-contract.json`)
      ? prefix
      : campaignPrefix !== null && ctx.has("verifier-contract.json")
        ? campaignPrefix
        : null;
  // A problem that failed pass 1: its contract, fixtures and bindings, which never read problem.json.
  for (const prefix of failed) {
    const contractPrefix = ownOrCampaignContract(prefix);
    const contract = contractPrefix === null ? undefined : await contractFor(contractPrefix);
    if (!contract) continue;
    await checkFixtures(ctx, contract, prefix, campaignPrefix);
    await checkBindings(ctx, prefix, contract, false);
  }
  const mechanisms = [];
  for (const entry of problems) {
    const file = `${entry.prefix}problem.json`;
    const ownFile = ctx.has(`${entry.prefix}verifier-contract.json`);
    const published = entry.problem.verifier_contract ?? null;
    if (published !== null && ownFile) {
      ctx.error(
        file,
        "/verifier_contract",
        "schema_violation",
        "a problem pins either a published contract (verifier_contract) or its own verifier-contract.json, never both; remove one",
      );
      continue;
    }
    const contractPrefix = published !== null ? null : ownOrCampaignContract(entry.prefix);
    const contract = contractPrefix === null ? undefined : await contractFor(contractPrefix);
    if (contractPrefix !== null && !contract) continue; // its errors are reported
    if (contract) await checkFixtures(ctx, contract, entry.prefix, campaignPrefix);
    mechanisms.push({ entry, contract, published });
  }

  for (const prefix of new Set([...(campaignPrefix === null ? [] : [campaignPrefix]), ...prefixes])) {
    const file = `${prefix}verifier-implementation.json`;
    if (ctx.has(file) && !ctx.has(`${prefix}verifier-contract.json`)) {
      ctx.error(
        file,
        "",
        "not_found",
        "verifier-implementation.json names implementations for the verifier-contract.json beside it, and there is none; move it next to its contract",
      );
    }
  }

  // Passes 5 and 6.
  const planned: CheckedProblem[] = [];
  const sealedBindings = [];
  for (const { entry, contract, published } of mechanisms) {
    const before = ctx.errors.length;
    const bindings = await checkBindings(ctx, entry.prefix, contract ?? null, published !== null);
    if (published === null) sealedBindings.push(...bindings.filter((b) => b.sealed));
    await checkSealing(
      ctx,
      `${entry.prefix}problem.json`,
      entry.problem.sealing,
      bindings,
      published !== null,
    );
    const skills = [...skillsOf.get(entry.prefix)!.values()];
    checkRevision(ctx, entry.prefix, {
      problem: entry.problem,
      statementMd: entry.statementMd,
      hasContract: contract !== undefined || published !== null,
      bindings,
      localSkillCount: skills.length,
    });
    if (ctx.errors.length === before)
      planned.push({ ...entry, skills, contract: contract ?? null, bindings });
  }

  await checkSealedBytesStaySealed(ctx, sealedBindings);

  if (ctx.errors.length > 0) return finish(ctx, null);
  const allSkills = [...sharedSkills.values(), ...[...skillsOf.values()].flatMap((m) => [...m.values()])];
  const protocols = [...protocolAt.values()].flatMap((p) => (p.entry ? [p.entry] : []));
  const contracts = [...contractAt.values()].filter((c): c is ContractEntry => c !== undefined);
  return finish(ctx, { campaign, skills: allSkills, protocols, contracts, problems: planned });
}

function finish(ctx: LintContext, checked: CheckedPackage | null): LintResult {
  const { errors, notes, fixes } = ctx;
  return errors.length === 0 && checked !== null
    ? { ok: true, errors, notes, fixes, checked }
    : { ok: false, errors, notes, fixes, checked: null };
}
