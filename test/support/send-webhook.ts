import { createHmac, randomUUID } from "node:crypto";

/** What the App answered to a delivery. */
export interface DeliveryAnswer {
  status: number;
  body: string;
  delivery: string;
}

/**
 * POSTs a webhook delivery as GitHub does: JSON body, `X-GitHub-Event`, `X-GitHub-Delivery` (a
 * new GUID unless given, so a redelivery passes the same one) and `X-Hub-Signature-256`, the
 * HMAC-SHA256 of the exact body under `secret`. `secret: null` sends no signature at all.
 */
export async function sendWebhook(
  url: string,
  event: string,
  payload: unknown,
  options: { secret: string | null; delivery?: string },
): Promise<DeliveryAnswer> {
  const body = JSON.stringify(payload);
  const delivery = options.delivery ?? randomUUID();
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "GitHub-Hookshot/test",
    "x-github-event": event,
    "x-github-delivery": delivery,
  };
  if (options.secret !== null) {
    headers["x-hub-signature-256"] =
      `sha256=${createHmac("sha256", options.secret).update(body).digest("hex")}`;
  }
  const response = await fetch(url, { method: "POST", headers, body });
  return { status: response.status, body: await response.text(), delivery };
}
