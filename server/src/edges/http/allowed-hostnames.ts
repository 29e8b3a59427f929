/** Loopback names, always allowed: an operator or a test on the machine itself. */
const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The Host (and Origin) hostnames /mcp answers to: loopback, plus the hostname of SVC_BASE_URL
 * when one is set. This is the SDK's DNS-rebinding guard widened to the public name; a service
 * reached under any other name needs SVC_BASE_URL.
 */
export function allowedHostnames(baseUrl: string | undefined): string[] {
  if (baseUrl === undefined) return [...LOOPBACK];
  const { hostname } = new URL(baseUrl);
  return LOOPBACK.includes(hostname) ? [...LOOPBACK] : [...LOOPBACK, hostname];
}
