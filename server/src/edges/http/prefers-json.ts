/**
 * Whether an `Accept` header ranks `application/json` above `text/html` (quality values honoured,
 * ties broken by order). A missing header or a browser's default prefers HTML.
 */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranked = accept.split(",").map((part, index) => {
    const [type = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return { type: type.trim(), q: q ? Number(q.slice(2)) || 0 : 1, index };
  });
  const quality = (wanted: string) =>
    ranked.find((r) => r.type === wanted) ??
    ranked.find((r) => r.type === `${wanted.split("/")[0]}/*`) ??
    ranked.find((r) => r.type === "*/*");
  const json = quality("application/json");
  const html = quality("text/html");
  if (!json || json.q === 0) return false;
  if (!html || html.q === 0) return true;
  return (
    json.q > html.q || (json.q === html.q && json.index < html.index && json.type === "application/json")
  );
}
