import type { Services } from "../core/services/services.ts";
import { signedUrlExpiry, signUrl } from "../core/signing/signed-url.ts";
import type { Caller } from "../users/caller.ts";

/** A signed download link as envelopes and large-resource pointers report it. */
export interface SignedDownloadLink {
  /** Absolute `{base_url}/dl/<payload>.<signature>`; no credentials needed (private work aside). */
  download_url: string;
  /** When the link stops working: 15 minutes after it was made, in whole seconds. */
  expires_at: string;
}

/** Makes signed links for one response, all expiring at the same instant. */
export function signedDownloads(
  services: Services,
  caller: Pick<Caller, "baseUrl">,
): (target: string) => SignedDownloadLink {
  const { baseUrl } = caller;
  const expiresAt = signedUrlExpiry(services.clock());
  return (target) => ({
    download_url: `${baseUrl}${signUrl({ target, expiresAt }, services.signingSecret)}`,
    expires_at: expiresAt.toISOString(),
  });
}
