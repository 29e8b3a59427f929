/** One problem with an agent reviewer's `config`: the offending key and what to do. */
export interface ConfigProblem {
  key: string;
  message: string;
}

/** A provider the service itself invokes for agent reviewers. */
export interface HostedProvider {
  /** Checks a reviewer `config` (rule 9): unknown keys and out-of-range values. Any model name is served. */
  configProblems(config: Readonly<Record<string, unknown>>): ConfigProblem[];
}

const EFFORTS = ["low", "medium", "high", "xhigh", "max"];
const MAX_TOKENS = { min: 256, max: 64_000 };

const anthropic: HostedProvider = {
  configProblems(config) {
    const problems: ConfigProblem[] = [];
    for (const [key, value] of Object.entries(config)) {
      if (key === "effort") {
        if (typeof value !== "string" || !EFFORTS.includes(value)) {
          problems.push({ key, message: `effort must be one of ${EFFORTS.join(", ")}` });
        }
      } else if (key === "max_tokens") {
        if (
          !Number.isInteger(value) ||
          (value as number) < MAX_TOKENS.min ||
          (value as number) > MAX_TOKENS.max
        ) {
          problems.push({
            key,
            message: `max_tokens must be an integer from ${MAX_TOKENS.min} to ${MAX_TOKENS.max}`,
          });
        }
      } else {
        problems.push({ key, message: `anthropic takes only effort and max_tokens; remove "${key}"` });
      }
    }
    return problems;
  },
};

/** The hosted agent providers, by the name written in `allowed[].provider` (decisions.md: `anthropic`). */
export const HOSTED_PROVIDERS: ReadonlyMap<string, HostedProvider> = new Map([["anthropic", anthropic]]);
