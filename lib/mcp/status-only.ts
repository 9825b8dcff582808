// A result that only reports its own status carries no text from outside (issue 44 §3): an MCP
// tool says so by declaring an `outputSchema` whose every value is a boolean, a number or one of a
// few short words it lists (`enum`), and answering with `structuredContent` that holds exactly
// that. The model then reads that structured value alone — the result's free text is dropped — and
// the result marks nothing untrusted. Anything else the schema or the answer allows (a free string,
// an undeclared key, a word not listed) and the result is content like any other.

type Schema = Record<string, unknown>;

const WORD = /^[\w .:-]{1,40}$/;
const MAX_DEPTH = 4;

function isRecord(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether every value the schema allows is status, not text. */
export function isStatusSchema(schema: unknown, depth = 0): boolean {
  if (!isRecord(schema) || depth > MAX_DEPTH) return false;
  if (Array.isArray(schema.enum)) return schema.enum.length > 0 && schema.enum.every((word) => typeof word !== 'string' || WORD.test(word));
  switch (schema.type) {
    case 'boolean':
    case 'number':
    case 'integer':
    case 'null':
      return true;
    case 'array':
      return isStatusSchema(schema.items, depth + 1);
    case 'object': {
      const properties = schema.properties;
      if (!isRecord(properties) || Object.keys(properties).length === 0) return false;
      return Object.values(properties).every((property) => isStatusSchema(property, depth + 1));
    }
    default:
      return false;
  }
}

/** Whether this value is one the status schema allows (every key declared, every word listed). */
export function matchesStatusSchema(value: unknown, schema: unknown, depth = 0): boolean {
  if (!isRecord(schema) || depth > MAX_DEPTH) return false;
  if (Array.isArray(schema.enum)) return schema.enum.includes(value as never);
  switch (schema.type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value) && value.length <= 100 && value.every((item) => matchesStatusSchema(item, schema.items, depth + 1));
    case 'object': {
      const properties = schema.properties as Schema;
      return isRecord(value) && Object.entries(value).every(([key, item]) => Object.hasOwn(properties, key) && matchesStatusSchema(item, properties[key], depth + 1));
    }
    default:
      return false;
  }
}

/** The structured status the model reads instead of the result's text, or null when the result is content. */
export function statusOnlyContent(outputSchema: unknown, structuredContent: unknown): string | null {
  if (structuredContent === undefined || !isStatusSchema(outputSchema) || !matchesStatusSchema(structuredContent, outputSchema)) return null;
  return JSON.stringify(structuredContent);
}
