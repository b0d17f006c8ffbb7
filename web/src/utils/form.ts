// Helpers for drawing the schema → form model (mcpscope_proto::form) computed by the backend.
// Pure: values in, values out. The model itself is never computed here.

import type { FieldError, FieldKind, FormField, Json, JsonObject, StringFormat } from './types';

/** Array bounds (`min_items`/`max_items`: serde renames the variants of `FieldKind`, not their fields). */
export function arrayBounds(kind: FieldKind): { min?: number; max?: number } {
  if (kind.type !== 'array') return {};
  return { min: kind.min_items, max: kind.max_items };
}

/** String length bounds. */
export function stringBounds(kind: FieldKind): { min?: number; max?: number } {
  if (kind.type !== 'string') return {};
  return { min: kind.min_length, max: kind.max_length };
}

/**
 * The initial value of a form (same rule as `mcpscope_proto::form::initial_value`): defaults where
 * given; required objects built out so nested required fields have a place; optional fields left
 * out, so "not set" stays distinguishable.
 */
export function initialValue(field: FormField): Json | undefined {
  if (field.default !== undefined) return field.default;
  if (field.kind.type === 'object') {
    const out: JsonObject = {};
    for (const f of field.kind.fields) {
      const v = initialValue(f);
      if (v !== undefined && (f.required || f.default !== undefined)) out[f.key] = v;
    }
    if (field.required || field.key === '' || Object.keys(out).length > 0) return out;
  }
  return undefined;
}

/** A new value for an empty array item. */
export function emptyItem(item: FormField): Json {
  const init = initialValue({ ...item, required: true });
  if (init !== undefined) return init;
  switch (item.kind.type) {
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'number':
      return 0;
    case 'array':
      return [];
    case 'enum':
      return item.kind.options[0]?.value ?? null;
    default:
      return null;
  }
}

/** `obj` with `key` set to `value`, or removed when `value` is undefined (never mutates). */
export function setKey(
  obj: Json | undefined,
  key: string,
  value: Json | undefined,
  order?: readonly string[],
): JsonObject {
  const base: JsonObject = obj && typeof obj === 'object' && !Array.isArray(obj) ? { ...obj } : {};
  if (value === undefined) delete base[key];
  else base[key] = value;
  if (!order) return base;
  // The request shows the arguments as the schema lists them, whatever order they were filled
  // in (the TUI does the same: mcpscope_proto::form::in_field_order); keys the schema does not
  // name (typed in JSON mode) keep their place after them.
  const sorted: JsonObject = {};
  for (const k of order) if (k in base) sorted[k] = base[k];
  for (const k of Object.keys(base)) if (!(k in sorted)) sorted[k] = base[k];
  return sorted;
}

/** `arr` with item `index` replaced. */
export function setIndex(arr: Json | undefined, index: number, value: Json): Json[] {
  const base = Array.isArray(arr) ? [...arr] : [];
  base[index] = value;
  return base;
}

/** `arr` without item `index`. */
export function removeIndex(arr: Json | undefined, index: number): Json[] {
  return Array.isArray(arr) ? arr.filter((_, i) => i !== index) : [];
}

/** Append to a JSON pointer (RFC 6901 escaping). */
export function childPointer(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * The errors to show under the field at `pointer`: errors at that path, plus "required" errors
 * reported on the parent that name this field's key.
 */
export function errorsAt(errors: FieldError[], pointer: string, key?: string): string[] {
  const out: string[] = [];
  const parent = pointer.slice(0, Math.max(0, pointer.lastIndexOf('/')));
  for (const e of errors) {
    if (e.path === pointer) {
      if (key !== undefined && isRequiredError(e.message)) {
        // A "required" error on this object is about a child; the child shows it.
        continue;
      }
      out.push(e.message);
    } else if (key !== undefined && e.path === parent && requiredKey(e.message) === key) {
      out.push('required');
    }
  }
  return out;
}

function isRequiredError(message: string): boolean {
  return /is a required property/.test(message);
}

function requiredKey(message: string): string | undefined {
  const m = /^"((?:[^"\\]|\\.)*)" is a required property/.exec(message);
  return m ? m[1] : undefined;
}

/** Errors no field claims (shown above the form). */
export function unclaimedErrors(field: FormField, errors: FieldError[]): FieldError[] {
  const claimed = new Set<string>();
  const walk = (f: FormField, pointer: string) => {
    claimed.add(pointer);
    if (f.kind.type === 'object') for (const c of f.kind.fields) walk(c, childPointer(pointer, c.key));
  };
  walk(field, '');
  return errors.filter((e) => {
    if (e.path === '' && isRequiredError(e.message)) {
      const key = requiredKey(e.message);
      return !(field.kind.type === 'object' && field.kind.fields.some((f) => f.key === key));
    }
    if (claimed.has(e.path)) return e.path === '' && !isRequiredError(e.message);
    // Inside arrays or JSON fields: the closest claimed ancestor shows it.
    return ![...claimed].some((p) => p !== '' && e.path.startsWith(p + '/'));
  });
}

/** Parse a number input. Empty → undefined ("not set"); otherwise a number or an error. */
export function parseNumber(text: string, integer: boolean): { value?: number; error?: string } {
  const t = text.trim();
  if (t === '') return {};
  const n = Number(t);
  if (!Number.isFinite(n)) return { error: 'not a number' };
  if (integer && !Number.isInteger(n)) return { error: 'must be an integer' };
  return { value: n };
}

/** Client-side bound checks, for instant feedback (the backend's validation is authoritative). */
export function boundErrors(field: FormField, value: Json | undefined): string[] {
  const out: string[] = [];
  const k = field.kind;
  if (value === undefined) {
    if (field.required) out.push('required');
    return out;
  }
  if (value === null) return field.nullable ? out : ['must not be null'];
  if (k.type === 'number' && typeof value === 'number') {
    if (k.minimum !== undefined && value < k.minimum) out.push(`must be ≥ ${k.minimum}`);
    if (k.maximum !== undefined && value > k.maximum) out.push(`must be ≤ ${k.maximum}`);
    if (k.integer && !Number.isInteger(value)) out.push('must be an integer');
  }
  if (k.type === 'string' && typeof value === 'string') {
    const { min, max } = stringBounds(k);
    const len = Array.from(value).length;
    if (min !== undefined && len < min) out.push(`at least ${min} characters`);
    if (max !== undefined && len > max) out.push(`at most ${max} characters`);
  }
  if (k.type === 'array' && Array.isArray(value)) {
    const { min, max } = arrayBounds(k);
    if (min !== undefined && value.length < min) out.push(`at least ${min} items`);
    if (max !== undefined && value.length > max) out.push(`at most ${max} items`);
  }
  return out;
}

export type TriState = 'unset' | 'true' | 'false';

/** An optional boolean as a tri-state. */
export function toTriState(value: Json | undefined): TriState {
  return value === true ? 'true' : value === false ? 'false' : 'unset';
}

/** Back from a tri-state ("not set" omits the argument). */
export function fromTriState(t: TriState): boolean | undefined {
  return t === 'true' ? true : t === 'false' ? false : undefined;
}

/** The HTML input type for a string format. */
export function inputTypeFor(format: StringFormat | undefined): 'text' | 'email' | 'url' | 'date' | 'datetime-local' {
  switch (format) {
    case 'email':
      return 'email';
    case 'uri':
      return 'url';
    case 'date':
      return 'date';
    case 'date-time':
      return 'datetime-local';
    default:
      return 'text';
  }
}

/** An RFC 3339 date-time shown in a `datetime-local` input (UTC, no zone suffix). */
export function dateTimeToLocalInput(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)/.exec(value);
  return m ? `${m[1]}T${m[2]}` : '';
}

/** A `datetime-local` input value as RFC 3339 (taken as UTC). */
export function localInputToDateTime(value: string): string | undefined {
  if (value === '') return undefined;
  const withSeconds = /T\d{2}:\d{2}$/.test(value) ? `${value}:00` : value;
  return `${withSeconds}Z`;
}

/** The option index of a select value (compared as JSON). */
export function optionIndex(options: { value: Json }[], value: Json | undefined): number {
  if (value === undefined) return -1;
  const s = JSON.stringify(value);
  return options.findIndex((o) => JSON.stringify(o.value) === s);
}

/** Parse the text of a JSON editor without touching it (the text is never re-escaped). */
export function parseJsonText(text: string): { value?: Json; error?: string } {
  if (text.trim() === '') return {};
  try {
    return { value: JSON.parse(text) as Json };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** JSON text for a value, as the JSON editor first shows it. */
export function toJsonText(value: Json | undefined): string {
  return value === undefined ? '' : JSON.stringify(value, null, 2);
}

/** Whether two JSON values are equal (structural). */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** True when the root can be drawn as a form (it is an object; inner JSON fields are fine). */
export function formDrawable(field: FormField | null | undefined): boolean {
  return !!field && field.kind.type === 'object';
}

/** The number of inputs a form shows (0: "no arguments"). */
export function fieldCount(field: FormField): number {
  return field.kind.type === 'object' ? field.kind.fields.length : 1;
}

/** A JSON Schema for prompt arguments (all strings), to get its form model from the backend. */
export function promptArgumentsSchema(args: { name: string; description?: string; required?: boolean }[]): JsonObject {
  const properties: JsonObject = {};
  for (const a of args) {
    properties[a.name] = a.description ? { type: 'string', description: a.description } : { type: 'string' };
  }
  return {
    type: 'object',
    properties,
    required: args.filter((a) => a.required).map((a) => a.name),
  };
}
