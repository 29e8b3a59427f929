import { z } from "zod";

/**
 * A tool's input object as query parameters: the same fields and rules, with the text a query
 * string carries read as the number or boolean a field expects (`limit=20`, `standalone=true`).
 * Text that is no such value stays text, so the field's own rule refuses it. A repeated
 * A field that takes an object (or a choice of objects) takes its JSON (`work={"problem":"p"}`).
 * `working_attempt_id` counts by its last value (spec 4.1: only the last one counts); any other
 * parameter given twice stays a list, which its field refuses. The JSON Schema (and so the
 * OpenAPI document) is the object's own: the conversion is a preprocess step.
 */
export function fromQueryString<Shape extends z.core.$ZodLooseShape>(input: z.ZodObject<Shape>) {
  const kinds = new Map<string, "number" | "boolean" | "json">();
  for (const [name, field] of Object.entries(input.shape)) {
    const kind = innerType(field as z.core.$ZodType);
    if (kind === "number" || kind === "boolean") kinds.set(name, kind);
    if (kind === "object" || kind === "union") kinds.set(name, "json");
  }
  return z.preprocess((query) => {
    if (query === null || typeof query !== "object") return query;
    const converted: Record<string, unknown> = { ...query };
    const working = converted.working_attempt_id;
    if (Array.isArray(working) && working.length > 0) converted.working_attempt_id = working.at(-1);
    for (const [name, kind] of kinds) {
      const value = converted[name];
      if (typeof value !== "string") continue;
      if (kind === "number" && /^-?[0-9]{1,15}$/.test(value)) converted[name] = Number(value);
      if (kind === "boolean" && (value === "true" || value === "false")) converted[name] = value === "true";
      if (kind === "json" && value.startsWith("{")) converted[name] = parsedOr(value);
    }
    return converted;
  }, input);
}

/** The type under a field's optional, default and nullable wrappers (`number`, `string`, ...). */
function innerType(field: z.core.$ZodType): string {
  let def = field._zod.def as z.core.$ZodTypeDef & { innerType?: z.core.$ZodType };
  while (def.innerType !== undefined) {
    def = def.innerType._zod.def as typeof def;
  }
  return def.type;
}

/** The JSON value of text, or the text itself when it is not JSON (the field's rule then refuses it). */
function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
