import {
  openServiceClient,
  type ServiceClient,
  type ServiceClientOptions,
} from "../client/service-client.ts";
import { realSleep } from "../client/with-retries.ts";

/**
 * What the service commands reach outside their arguments. `runCli` uses the real ones; tests
 * pass an environment (SVC_BASE_URL, SVC_TOKEN), a sleep that does not wait, a fixed clock.
 */
export interface CliDeps {
  env: Readonly<Record<string, string | undefined>>;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  now: () => Date;
  openClient: (options: ServiceClientOptions) => ServiceClient;
}

export function defaultDeps(overrides: Partial<CliDeps> = {}): CliDeps {
  return {
    env: process.env,
    sleep: realSleep,
    random: Math.random,
    now: () => new Date(),
    openClient: openServiceClient,
    ...overrides,
  };
}
