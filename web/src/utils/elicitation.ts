// The elicitation form: which control each field of the backend's form model gets, what the
// inputs start with, and what Accept sends — every field checked first (required, bounds,
// pattern, format). Pure: drafts in, content and errors out.
//
// The form model comes from the backend (`POST /api/form`, mcpscope_proto::form); the bound rules
// (required, minimum/maximum, integer, minLength/maxLength, minItems/maxItems of plain arrays) are
// `boundErrors` of ./form, shared with the tool forms. This file adds the two rules the tool forms
// leave to the backend's validator — `pattern` and `format` — and the item bounds of a
// multi-select, which the form model does not carry (it turns an array of an enum into an enum).

import { boundErrors, dateTimeToLocalInput, localInputToDateTime, optionIndex, parseJsonText, parseNumber, toJsonText } from './form';
import type { FormField, Json, JsonObject, StringFormat } from './types';

/** More fields than this are answered in the JSON editor: a form that long is no help, and
 *  drawing thousands of inputs would stall the page. */
export const MAX_FORM_FIELDS = 100;

/** The input a field gets. `json`: outside the elicitation subset (nested objects, arrays of
 *  non-enums, what the model could not draw) — a JSON editor for that one field. */
export type Control = 'text' | 'number' | 'boolean' | 'select' | 'checkboxes' | 'json';

export interface ElicitField {
  field: FormField;
  control: Control;
  /** The property's own schema (for a multi-select's minItems/maxItems). */
  raw: JsonObject;
}

/** What an input holds: the text typed (text, number, json), a checkbox (undefined: never
 *  touched and no default), the chosen option's index ('' none), the chosen options' indices. */
export type Draft = string | boolean | number[] | undefined;

export type ElicitLayout = { fields: ElicitField[] } | { fallback: string };

function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

export function controlOf(field: FormField): Control {
  const k = field.kind;
  switch (k.type) {
    case 'string':
      return 'text';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return k.multi ? 'checkboxes' : 'select';
    default:
      return 'json';
  }
}

/**
 * The form for a `requestedSchema` and its form model, or why the whole answer is JSON: a schema
 * that is not an object of properties (the elicitation subset is a flat object), a model the
 * backend could not draw as an object, or more than `MAX_FORM_FIELDS` fields.
 */
export function elicitLayout(schema: Json | undefined, model: FormField | null): ElicitLayout {
  if (!isObject(schema)) return { fallback: `the requested schema is ${schema === undefined ? 'missing' : `not an object (${Array.isArray(schema) ? 'an array' : schema === null ? 'null' : typeof schema})`}` };
  if (!model) return { fallback: 'the form could not be built' };
  if (model.kind.type !== 'object') return { fallback: model.kind.type === 'json' ? model.kind.reason : `the schema is a ${model.kind.type}, not an object` };
  const n = model.kind.fields.length;
  if (n > MAX_FORM_FIELDS) return { fallback: `${n} fields are too many for a form` };
  const props = isObject(schema.properties) ? schema.properties : {};
  return {
    fields: model.kind.fields.map((field) => ({ field, control: controlOf(field), raw: isObject(props[field.key]) ? (props[field.key] as JsonObject) : {} })),
  };
}

/** What a field's input starts with: its default where it has one. */
export function initialDraft(f: ElicitField): Draft {
  const d = f.field.default;
  const k = f.field.kind;
  switch (f.control) {
    case 'text':
      if (typeof d !== 'string') return '';
      return k.type === 'string' && k.format === 'date-time' ? dateTimeToLocalInput(d) : d;
    case 'number':
      return typeof d === 'number' ? String(d) : '';
    case 'boolean':
      return typeof d === 'boolean' ? d : undefined;
    case 'select': {
      const i = k.type === 'enum' ? optionIndex(k.options, d) : -1;
      return i < 0 ? '' : String(i);
    }
    case 'checkboxes': {
      if (k.type !== 'enum' || !Array.isArray(d)) return [];
      return d.map((v) => optionIndex(k.options, v)).filter((i) => i >= 0);
    }
    case 'json':
      return toJsonText(d);
  }
}

export function initialDrafts(fields: ElicitField[]): Record<string, Draft> {
  return Object.fromEntries(fields.map((f) => [f.field.key, initialDraft(f)]));
}

/** The value a draft stands for (undefined: left out), or why it is not one. */
export function draftValue(f: ElicitField, draft: Draft): { value?: Json; error?: string } {
  const k = f.field.kind;
  switch (f.control) {
    case 'text': {
      const t = typeof draft === 'string' ? draft : '';
      if (t === '') return {};
      return { value: k.type === 'string' && k.format === 'date-time' ? localInputToDateTime(t) : t };
    }
    case 'number':
      return parseNumber(typeof draft === 'string' ? draft : '', k.type === 'number' && k.integer);
    case 'boolean':
      return typeof draft === 'boolean' ? { value: draft } : {};
    case 'select': {
      if (k.type !== 'enum' || typeof draft !== 'string' || draft === '') return {};
      const o = k.options[Number(draft)];
      return o ? { value: o.value } : {};
    }
    case 'checkboxes': {
      if (k.type !== 'enum' || !Array.isArray(draft) || draft.length === 0) return {};
      // In option order, whatever order they were ticked in.
      return { value: [...draft].sort((a, b) => a - b).flatMap((i) => (k.options[i] ? [k.options[i].value] : [])) };
    }
    case 'json': {
      const parsed = parseJsonText(typeof draft === 'string' ? draft : '');
      return parsed.error ? { error: `not valid JSON: ${parsed.error}` } : { value: parsed.value };
    }
  }
}

/** `pattern` (ECMA-262, unanchored, as JSON Schema says). A pattern that does not compile is the
 *  server's mistake: it is not held against the user's answer. */
export function patternError(pattern: string | undefined, value: string): string | undefined {
  if (pattern === undefined) return undefined;
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  return re.test(value) ? undefined : `must match the pattern ${pattern}`;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** `format` as the elicitation schema allows it: email, uri, date (RFC 3339 full-date),
 *  date-time (RFC 3339). */
export function formatError(format: StringFormat | undefined, value: string): string | undefined {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/.test(value) ? undefined : 'must be an email address';
    case 'uri': {
      // An absolute URI: a scheme, then something.
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value)) return 'must be an absolute URI (with a scheme, e.g. https://)';
      try {
        new URL(value);
        return undefined;
      } catch {
        return 'must be an absolute URI (with a scheme, e.g. https://)';
      }
    }
    case 'date':
      return validDate(value) ? undefined : 'must be a date (YYYY-MM-DD)';
    case 'date-time': {
      const m = DATE_TIME.exec(value);
      const ok = !!m && validDate(m[1]) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) < 61;
      return ok ? undefined : 'must be a date and time (RFC 3339)';
    }
    default:
      return undefined;
  }
}

/** A multi-select's minItems/maxItems, read from its own schema (see the top of this file). */
function itemErrors(raw: JsonObject, value: Json | undefined): string[] {
  const n = Array.isArray(value) ? value.length : 0;
  const min = typeof raw.minItems === 'number' ? raw.minItems : undefined;
  const max = typeof raw.maxItems === 'number' ? raw.maxItems : undefined;
  const out: string[] = [];
  if (value !== undefined && min !== undefined && n < min) out.push(`choose at least ${min}`);
  if (max !== undefined && n > max) out.push(`choose at most ${max}`);
  return out;
}

/** Every rule for one field: the errors shown under it. */
export function fieldErrors(f: ElicitField, draft: Draft): string[] {
  const { value, error } = draftValue(f, draft);
  if (error) return [error];
  const out = boundErrors(f.field, value);
  const k = f.field.kind;
  if (k.type === 'string' && typeof value === 'string') {
    const p = patternError(k.pattern, value);
    if (p) out.push(p);
    const fe = formatError(k.format, value);
    if (fe) out.push(fe);
  }
  if (f.control === 'checkboxes') out.push(...itemErrors(f.raw, value));
  return out;
}

/** What Accept sends, and the errors by key; `ok` only when no field has one. */
export function collect(fields: ElicitField[], drafts: Record<string, Draft>): { ok: boolean; content: JsonObject; errors: Record<string, string[]> } {
  const content: JsonObject = {};
  const errors: Record<string, string[]> = {};
  for (const f of fields) {
    const key = f.field.key;
    const e = fieldErrors(f, drafts[key]);
    if (e.length > 0) errors[key] = e;
    const { value } = draftValue(f, drafts[key]);
    if (value !== undefined) content[key] = value;
  }
  return { ok: Object.keys(errors).length === 0, content, errors };
}
