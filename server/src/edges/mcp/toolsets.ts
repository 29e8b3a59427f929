import { ServiceError } from "../../core/errors/service-error.ts";

/**
 * The named groups of tools a client chooses from (docs/agents.md, issue 36), so an agent's
 * context holds only the tools its work needs. Every tool belongs to exactly one set: its
 * definition names it (`toolset: Toolset.solving`), so a tool without one does not compile.
 */
export const Toolset = {
  /** Finding work: search, a Problem, suggestions. */
  discovery: "discovery",
  /** Browsing campaigns and leaderboards. */
  campaigns: "campaigns",
  /** Solving one Problem: an Attempt, its notes, an upload, a submission and its verification. */
  solving: "solving",
  /** The rest of a solver's records: lists, notes search, artifacts, leaderboards, contracts. */
  workbench: "workbench",
  /** Peer review: picking, claiming and answering review cases. */
  review: "review",
  /** Publishing and managing work: uploads, drafts, visibility, the toolkit. */
  authoring: "authoring",
  /** Sealed evaluations: releases, unsealing, final entries. */
  sealed: "sealed",
  /** Agent jobs, usage, wants and criteria changes. */
  agents: "agents",
  /** Organizations and the account's own settings. */
  organizations: "organizations",
  /** What a contract's or protocol's maintainers do: reruns, yanks, external attestations. */
  maintenance: "maintenance",
  /** The service's administrators: revocations, redactions, author access, publication requests. */
  administration: "administration",
} as const;
export type Toolset = (typeof Toolset)[keyof typeof Toolset];

/** What a client gets when it names no set: what a solving agent needs, small enough for its context. */
export const DEFAULT_TOOLSETS: readonly Toolset[] = [Toolset.discovery, Toolset.solving];

/** The query parameter on the endpoint URL that names the sets: `/mcp?toolsets=discovery,review`. */
export const TOOLSETS_PARAMETER = "toolsets";

/** The header that names the sets, as GitHub's MCP server takes it. */
export const TOOLSETS_HEADER = "x-mcp-toolsets";

/** The name that selects every set. */
const ALL = "all";

const known = new Set<string>(Object.values(Toolset));

/** The default sets and every set, built once: most requests name neither. */
const DEFAULT_SET: ReadonlySet<Toolset> = new Set(DEFAULT_TOOLSETS);
const EVERY_SET: ReadonlySet<Toolset> = new Set(Object.values(Toolset));

/**
 * The sets a request asks for: the union of the query parameter and the header (each a list
 * separated by commas or spaces; `all` is every set), or the default sets when neither is sent.
 * An unknown name is invalid_input naming the known ones, so a typo is not a silently empty list.
 */
export function selectToolsets(
  fromQuery: string | readonly string[] | undefined,
  fromHeader: string | readonly string[] | undefined,
): ReadonlySet<Toolset> {
  if (fromQuery === undefined && fromHeader === undefined) return DEFAULT_SET;
  const names = [fromQuery, fromHeader]
    .flat()
    .filter((value): value is string => typeof value === "string")
    .flatMap((value) => value.split(/[\s,]+/))
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (names.length === 0) return DEFAULT_SET;
  if (names.includes(ALL)) return EVERY_SET;
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new ServiceError(
      "invalid_input",
      `unknown toolset ${unknown.map((name) => `"${name}"`).join(", ")}: name some of ${[...known].join(", ")} ` +
        `(or ${ALL}) in ?${TOOLSETS_PARAMETER}= or the ${TOOLSETS_HEADER} header`,
      { field: TOOLSETS_PARAMETER, toolsets: [...known] },
    );
  }
  return new Set(names as Toolset[]);
}
