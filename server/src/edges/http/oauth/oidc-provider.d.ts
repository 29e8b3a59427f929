// oidc-provider ships no type declarations; these name the few parts the service uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export interface Grant {
    jti: string;
    accountId: string;
    clientId: string;
    addResourceScope(resource: string, scope: string): void;
    addOIDCScope(scope: string): void;
    getResourceScope(resource: string): string;
    save(ttl?: number): Promise<string>;
    destroy(): Promise<void>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, string | undefined>;
    grantId?: string;
    session?: { accountId: string };
    returnTo: string;
  }

  export interface ClientRecord {
    clientId: string;
    clientName?: string;
    metadata(): Record<string, unknown>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    Grant: {
      new (properties: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    Client: { find(id: string): Promise<ClientRecord | undefined> };
  }

  export const errors: Record<string, new (description?: string) => Error>;
}
