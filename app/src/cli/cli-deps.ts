import {
  openServiceClient,
  type ServiceClient,
  type ServiceClientOptions,
} from "../client/service-client.ts";
import { realSleep } from "../client/with-retries.ts";
import { openSystemBrowser } from "./login-command.ts";

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
  /** Opens a URL in a browser (`svc login`); false when none opened. */
  openBrowser: (url: string) => Promise<boolean>;
}

export function defaultDeps(overrides: Partial<CliDeps> = {}): CliDeps {
  return {
    env: process.env,
    sleep: realSleep,
    random: Math.random,
    now: () => new Date(),
    openClient: openServiceClient,
    openBrowser: openSystemBrowser,
    ...overrides,
  };
}
