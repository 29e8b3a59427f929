import { readdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * `node scripts/result-schemas.ts` (`npm run generate:result-schemas`): the JSON Schema of what
 * each MCP tool's `run` returns, read from the TypeScript types the results
 * are built from (the domain's interfaces), so a tool without a zod `output` still declares its
 * result's real shape and nobody writes it a second time (issue 36). The schemas are written to
 * RESULT_SCHEMAS_FILE, which the tool adapter reads; `result-schemas.test.ts` fails when the
 * file no longer matches the types. Each is loose like the hand-written ones (a field the
 * domain adds is served before it is declared), nested at most MAX_DEPTH objects deep (deeper
 * values are any JSON), and carries no descriptions (the fields are described in docs/).
 * A Date is its JSON form, a string; a field that may be undefined is optional.
 */

/** How many objects deep a schema names fields; below that a value is any JSON. */
const MAX_DEPTH = 3;

type JsonSchema = Record<string, unknown>;

const TOOLS_FOLDER = fileURLToPath(new URL("../server/src/edges/mcp/tools/", import.meta.url));

/** Where the schemas are kept, beside the tool definitions. */
export const RESULT_SCHEMAS_FILE = `${TOOLS_FOLDER}result-schemas.json`;

/** The files that define tools: `*-tools.ts` of the tools folder. */
export function toolFiles(): string[] {
  return readdirSync(TOOLS_FOLDER)
    .filter((name) => name.endsWith("-tools.ts"))
    .sort()
    .map((name) => `${TOOLS_FOLDER}${name}`);
}

/** The file's text: the schemas as formatted JSON, so a change reads as a diff. */
export function resultSchemasText(schemas: Record<string, JsonSchema>): string {
  return `${JSON.stringify(schemas, null, 2)}\n`;
}

if (import.meta.main) {
  const schemas = readResultSchemas(toolFiles());
  writeFileSync(RESULT_SCHEMAS_FILE, resultSchemasText(schemas));
  console.log(`${Object.keys(schemas).length} result schemas written to ${RESULT_SCHEMAS_FILE}`);
}

/** Every tool's result schema, by tool name, for the tools whose definition has no `output`. */
export function readResultSchemas(toolFiles: readonly string[]): Record<string, JsonSchema> {
  const program = ts.createProgram([...toolFiles], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  const schemas: Record<string, JsonSchema> = {};
  for (const file of toolFiles) {
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`${file} is not in the program`);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.getText(source) === "defineTool") {
        const definition = node.arguments[0];
        if (definition !== undefined && ts.isObjectLiteralExpression(definition)) {
          const found = resultOf(checker, source, definition);
          if (found !== undefined) schemas[found.name] = found.schema;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
}

/** A tool definition's name and result schema; undefined when it declares `output` itself. */
function resultOf(
  checker: ts.TypeChecker,
  source: ts.SourceFile,
  definition: ts.ObjectLiteralExpression,
): { name: string; schema: JsonSchema } | undefined {
  let name: string | undefined;
  let run: ts.SignatureDeclaration | undefined;
  for (const property of definition.properties) {
    const key = property.name?.getText(source);
    if (key === "output") return undefined;
    if (key === "name" && ts.isPropertyAssignment(property) && ts.isStringLiteral(property.initializer)) {
      name = property.initializer.text;
    }
    if (key === "run" && ts.isMethodDeclaration(property)) run = property;
    if (
      key === "run" &&
      ts.isPropertyAssignment(property) &&
      (ts.isArrowFunction(property.initializer) || ts.isFunctionExpression(property.initializer))
    ) {
      run = property.initializer;
    }
  }
  if (name === undefined || run === undefined) return undefined;
  const signature = checker.getSignatureFromDeclaration(run);
  if (signature === undefined) throw new Error(`${name}: run has no signature`);
  const promised = checker.getAwaitedType(checker.getReturnTypeOfSignature(signature));
  if (promised === undefined) throw new Error(`${name}: run returns no promise`);
  return { name, schema: schemaOf(checker, promised, 0, []) };
}

function schemaOf(checker: ts.TypeChecker, type: ts.Type, depth: number, seen: ts.Type[]): JsonSchema {
  const flags = type.flags;
  if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
  if (flags & ts.TypeFlags.Null) return { type: "null" };
  if (flags & ts.TypeFlags.StringLiteral)
    return { type: "string", const: (type as ts.StringLiteralType).value };
  if (flags & ts.TypeFlags.NumberLiteral)
    return { type: "number", const: (type as ts.NumberLiteralType).value };
  if (flags & ts.TypeFlags.BooleanLiteral) return { type: "boolean" };
  if (flags & ts.TypeFlags.StringLike) return { type: "string" };
  if (flags & ts.TypeFlags.NumberLike) return { type: "number" };
  if (flags & ts.TypeFlags.BooleanLike) return { type: "boolean" };
  if (type.isUnion()) return unionOf(checker, type.types, depth, seen);
  if (type.isIntersection()) {
    return objectOf(checker, type, depth, seen);
  }
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const [element] = checker.getTypeArguments(type as ts.TypeReference);
    if (checker.isTupleType(type)) return { type: "array" };
    return { type: "array", items: element === undefined ? {} : schemaOf(checker, element, depth, seen) };
  }
  const symbolName = type.getSymbol()?.getName();
  // What JSON.stringify makes of them: a Date its ISO string, a Buffer an object of bytes.
  if (symbolName === "Date") return { type: "string" };
  if (flags & ts.TypeFlags.Object) return objectOf(checker, type, depth, seen);
  return {};
}

/** A union: `undefined` is left to the property (optional), literals of one kind become an enum. */
function unionOf(
  checker: ts.TypeChecker,
  members: readonly ts.Type[],
  depth: number,
  seen: ts.Type[],
): JsonSchema {
  const defined = members.filter((member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
  const booleans = defined.filter((member) => member.flags & ts.TypeFlags.BooleanLiteral);
  const rest = defined.filter((member) => !(member.flags & ts.TypeFlags.BooleanLiteral));
  const schemas = [...rest.map((member) => schemaOf(checker, member, depth, seen))];
  if (booleans.length > 0) schemas.push({ type: "boolean" });
  const strings = schemas.filter((schema) => schema.type === "string" && "const" in schema);
  const others = schemas.filter((schema) => !(schema.type === "string" && "const" in schema));
  const merged = [...others];
  if (strings.length > 0) merged.push({ type: "string", enum: strings.map((schema) => schema.const) });
  if (merged.some((schema) => Object.keys(schema).length === 0)) return {};
  if (merged.length === 1) return merged[0]!;
  // A type or null: one schema with both types, the commonest union in these results.
  const nonNull = merged.filter((schema) => schema.type !== "null");
  const [only] = nonNull;
  if (only !== undefined && nonNull.length === 1 && merged.length === 2 && typeof only.type === "string") {
    const values = Array.isArray(only.enum) ? { enum: [...only.enum, null] } : {};
    return { ...only, type: [only.type, "null"], ...values };
  }
  return { anyOf: merged };
}

function objectOf(checker: ts.TypeChecker, type: ts.Type, depth: number, seen: ts.Type[]): JsonSchema {
  if (depth >= MAX_DEPTH || seen.includes(type)) return { type: "object" };
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const property of checker.getPropertiesOfType(type)) {
    const declaration = property.valueDeclaration ?? property.declarations?.[0];
    if (declaration === undefined) continue;
    const propertyType = checker.getTypeOfSymbolAtLocation(property, declaration);
    if (propertyType.getCallSignatures().length > 0) continue;
    const optional =
      (property.flags & ts.SymbolFlags.Optional) !== 0 ||
      (propertyType.isUnion() && propertyType.types.some((member) => member.flags & ts.TypeFlags.Undefined));
    properties[property.name] = schemaOf(checker, propertyType, depth + 1, [...seen, type]);
    if (!optional) required.push(property.name);
  }
  const index = checker.getIndexInfosOfType(type)[0];
  const schema: JsonSchema = { type: "object" };
  if (Object.keys(properties).length > 0) schema.properties = properties;
  if (required.length > 0) schema.required = required;
  if (index !== undefined && Object.keys(properties).length === 0) {
    const values = schemaOf(checker, index.type, depth + 1, [...seen, type]);
    if (Object.keys(values).length > 0) schema.additionalProperties = values;
  }
  return schema;
}
