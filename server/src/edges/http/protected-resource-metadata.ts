import { Scope } from "@svc/schemas";

/** Where RFC 9728 puts a resource's metadata: this prefix, then the resource's path. */
export const PROTECTED_RESOURCE_METADATA_PREFIX = "/.well-known/oauth-protected-resource";

/** The metadata URL of the resource at `path` (such as "/mcp") under `baseUrl`. */
export function protectedResourceMetadataUrl(baseUrl: string, path: string): string {
  return `${baseUrl}${PROTECTED_RESOURCE_METADATA_PREFIX}${path}`;
}

/**
 * The RFC 9728 Protected Resource Metadata of the resource at `baseUrl` + `path`. The service is
 * its own authorization server (issuer `baseUrl`, RFC 8414 metadata at
 * `/.well-known/oauth-authorization-server`); operator-issued bearer tokens work as well.
 */
export function protectedResourceMetadata(baseUrl: string, path: string) {
  return {
    resource: `${baseUrl}${path}`,
    authorization_servers: [baseUrl],
    scopes_supported: Object.values(Scope),
    bearer_methods_supported: ["header"],
    resource_name: "svc",
  };
}
