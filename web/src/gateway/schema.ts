// A tool's `inputSchema` as the form model the web UI's SchemaForm draws (the FormField of
// mcpscope_proto::form), and the local check behind Validate only. 002's rules for the gateway
// page: one input per top-level argument; complex object and array inputs accept JSON; optional
// booleans offer Not set / True / False (Not set omits the argument, so the server applies its
// own default). In gateway mode there is no backend `/api/form` (the page talks only to the
// relay), so the model is built here — from the schema alone, never fetching a `$ref`.

import type { FieldError, FieldKind, FormField, Json, JsonObject, StringFormat } from '../utils/types';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const FORMATS: StringFormat[] = ['email', 'uri', 'date', 'date-time'];

/** A schema's single type and whether `null` is also allowed (`type: [T, "null"]`). */
function typeOf(schema: JsonObject): { type?: string; nullable: boolean } {
  const t = schema.type;
  if (typeof t === 'string') return { type: t, nullable: t === 'null' };
  if (Array.isArray(t)) {
    const others = t.filter((x) => x !== 'null');
    return { type: others.length === 1 && typeof others[0] === 'string' ? others[0] : undefined, nullable: others.length < t.length };
  }
  return { nullable: false };
}

const num = (v: Json | undefined): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The input kind of one argument's schema. */
function kindOf(schema: JsonObject): FieldKind {
  const { type } = typeOf(schema);
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => v === null || typeof v !== 'object')) {
    return { type: 'enum', multi: false, options: schema.enum.filter((v) => v !== null).map((v) => ({ value: v, label: String(v) })) };
  }
  switch (type) {
    case 'string': {
      const format = FORMATS.find((f) => f === schema.format);
      return {
        type: 'string',
        ...(format ? { format } : {}),
        ...(num(schema.minLength) !== undefined ? { min_length: num(schema.minLength) } : {}),
        ...(num(schema.maxLength) !== undefined ? { max_length: num(schema.maxLength) } : {}),
        ...(typeof schema.pattern === 'string' ? { pattern: schema.pattern } : {}),
      };
    }
    case 'integer':
    case 'number':
      return {
        type: 'number',
        integer: type === 'integer',
        ...(num(schema.minimum) !== undefined ? { minimum: num(schema.minimum) } : {}),
        ...(num(schema.maximum) !== undefined ? { maximum: num(schema.maximum) } : {}),
      };
    case 'boolean':
      return { type: 'boolean' };
    case 'object':
      return { type: 'json', reason: 'an object' };
    case 'array':
      return { type: 'json', reason: 'an array' };
    default:
      return { type: 'json', reason: 'no single type' };
  }
}

/** The form of a tool's arguments: the root object and one field per property, in order. */
export function formModel(inputSchema: Json): FormField {
  const schema = isObject(inputSchema) ? inputSchema : {};
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const fields: FormField[] = Object.entries(props).map(([key, p]) => {
    const s = isObject(p) ? p : {};
    return {
      key,
      title: typeof s.title === 'string' && s.title !== '' ? s.title : key,
      ...(typeof s.description === 'string' ? { description: s.description } : {}),
      required: required.includes(key),
      nullable: typeOf(s).nullable,
      ...(s.default !== undefined ? { default: s.default } : {}),
      kind: kindOf(s),
    };
  });
  return { key: '', title: '', required: true, nullable: false, kind: { type: 'object', fields, open: schema.additionalProperties !== false } };
}

/** The form of a prompt's arguments (all strings). */
export function promptForm(args: { name: string; description?: string; required?: boolean }[]): FormField {
  return {
    key: '',
    title: '',
    required: true,
    nullable: false,
    kind: {
      type: 'object',
      open: false,
      fields: args.map((a) => ({
        key: a.name,
        title: a.name,
        ...(a.description ? { description: a.description } : {}),
        required: a.required === true,
        nullable: false,
        kind: { type: 'string' },
      })),
    },
  };
}

const pointer = (key: string) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** What Validate only finds: each message at its argument's JSON pointer; a missing required
 *  argument is reported on the root in the words SchemaForm places under the field. */
export function validate(form: FormField, value: Json | undefined): FieldError[] {
  if (form.kind.type !== 'object') return [];
  if (!isObject(value)) return [{ path: '', message: 'the arguments must be a JSON object' }];
  const errors: FieldError[] = [];
  for (const f of form.kind.fields) {
    const v = value[f.key];
    if (v === undefined) {
      if (f.required) errors.push({ path: '', message: `${JSON.stringify(f.key)} is a required property` });
      continue;
    }
    const message = fieldError(f, v);
    if (message) errors.push({ path: pointer(f.key), message });
  }
  if (!form.kind.open) {
    for (const k of Object.keys(value)) {
      if (!form.kind.fields.some((f) => f.key === k)) errors.push({ path: '', message: `${JSON.stringify(k)} is not an argument of this tool` });
    }
  }
  return errors;
}

function fieldError(f: FormField, v: Json): string | undefined {
  if (v === null) return f.nullable ? undefined : 'must not be null';
  const k = f.kind;
  switch (k.type) {
    case 'string': {
      if (typeof v !== 'string') return 'must be a string';
      const len = Array.from(v).length;
      if (k.min_length !== undefined && len < k.min_length) return `at least ${k.min_length} characters`;
      if (k.max_length !== undefined && len > k.max_length) return `at most ${k.max_length} characters`;
      if (k.pattern !== undefined && !matches(k.pattern, v)) return `must match ${k.pattern}`;
      return undefined;
    }
    case 'number':
      if (typeof v !== 'number') return k.integer ? 'must be an integer' : 'must be a number';
      if (k.integer && !Number.isInteger(v)) return 'must be an integer';
      if (k.minimum !== undefined && v < k.minimum) return `must be ≥ ${k.minimum}`;
      if (k.maximum !== undefined && v > k.maximum) return `must be ≤ ${k.maximum}`;
      return undefined;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'must be true or false';
    case 'enum':
      return k.options.some((o) => JSON.stringify(o.value) === JSON.stringify(v)) ? undefined : 'must be one of the listed values';
    case 'json':
      if (k.reason === 'an object' && !isObject(v)) return 'must be a JSON object';
      if (k.reason === 'an array' && !Array.isArray(v)) return 'must be a JSON array';
      return undefined;
    default:
      return undefined;
  }
}

/** A server's `pattern`, bounded: a pattern this browser cannot compile is not held against the
 *  value (the server still checks it). */
function matches(pattern: string, v: string): boolean {
  if (pattern.length > 1000) return true;
  try {
    return new RegExp(pattern, 'u').test(v);
  } catch {
    return true;
  }
}
