import { describe, expect, it } from 'vitest';
import { MAX_FORM_FIELDS, collect, elicitLayout, formatError, initialDrafts, patternError, type ElicitField } from './elicitation';
import type { FormField, Json, JsonObject } from './types';

const base = (key: string, title: string, kind: FormField['kind'], extra: Partial<FormField> = {}): FormField => ({
  key,
  title,
  required: false,
  nullable: false,
  kind,
  ...extra,
});

// The demo server's `elicit-form` schema (crates/mcpscope-demo/src/catalog.rs) and the form
// model the backend draws for it (mcpscope_proto::form): one field of every kind.
const schema: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Full name', minLength: 2, maxLength: 50, default: 'Ada Lovelace' },
    email: { type: 'string', title: 'Email', format: 'email' },
    homepage: { type: 'string', title: 'Homepage', format: 'uri' },
    birthday: { type: 'string', title: 'Birthday', format: 'date' },
    meetingAt: { type: 'string', title: 'Meeting time', format: 'date-time' },
    rating: { type: 'number', title: 'Rating', minimum: 0, maximum: 5, default: 4.5 },
    guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 10, default: 2 },
    subscribe: { type: 'boolean', title: 'Subscribe to news', default: true },
    size: { type: 'string', title: 'T-shirt size', enum: ['S', 'M', 'L', 'XL'], default: 'M' },
    toppings: { type: 'array', title: 'Toppings', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['cheese', 'olives', 'mushrooms', 'peppers'] }, default: ['cheese'] },
    code: { type: 'string', title: 'Code', pattern: '^[A-Z]{3}$' },
  },
  required: ['name', 'email'],
};
const opts = (vs: string[]) => vs.map((v) => ({ value: v, label: v }));
const model: FormField = base('', '', {
  type: 'object',
  open: true,
  fields: [
    base('name', 'Full name', { type: 'string', min_length: 2, max_length: 50 }, { required: true, default: 'Ada Lovelace' }),
    base('email', 'Email', { type: 'string', format: 'email' }, { required: true }),
    base('homepage', 'Homepage', { type: 'string', format: 'uri' }),
    base('birthday', 'Birthday', { type: 'string', format: 'date' }),
    base('meetingAt', 'Meeting time', { type: 'string', format: 'date-time' }),
    base('rating', 'Rating', { type: 'number', integer: false, minimum: 0, maximum: 5 }, { default: 4.5 }),
    base('guests', 'Guests', { type: 'number', integer: true, minimum: 1, maximum: 10 }, { default: 2 }),
    base('subscribe', 'Subscribe to news', { type: 'boolean' }, { default: true }),
    base('size', 'T-shirt size', { type: 'enum', options: opts(['S', 'M', 'L', 'XL']), multi: false }, { default: 'M' }),
    base('toppings', 'Toppings', { type: 'enum', options: opts(['cheese', 'olives', 'mushrooms', 'peppers']), multi: true }, { default: ['cheese'] }),
    base('code', 'Code', { type: 'string', pattern: '^[A-Z]{3}$' }),
  ],
});

function fields(): ElicitField[] {
  const l = elicitLayout(schema, model);
  if (!('fields' in l)) throw new Error(l.fallback);
  return l.fields;
}

describe('elicitLayout', () => {
  it('gives each kind its control', () => {
    expect(fields().map((f) => [f.field.key, f.control])).toEqual([
      ['name', 'text'],
      ['email', 'text'],
      ['homepage', 'text'],
      ['birthday', 'text'],
      ['meetingAt', 'text'],
      ['rating', 'number'],
      ['guests', 'number'],
      ['subscribe', 'boolean'],
      ['size', 'select'],
      ['toppings', 'checkboxes'],
      ['code', 'text'],
    ]);
  });
  it('falls back to JSON for what is not a flat object of properties', () => {
    for (const s of ['a string', 42, null, [1, 2], undefined] as (Json | undefined)[]) {
      expect(elicitLayout(s, model)).toHaveProperty('fallback');
    }
    expect(elicitLayout({}, base('', '', { type: 'json', reason: 'recursive: #/a' }))).toEqual({ fallback: 'recursive: #/a' });
    expect(elicitLayout({}, null)).toHaveProperty('fallback');
    const many = base('', '', { type: 'object', open: true, fields: Array.from({ length: MAX_FORM_FIELDS + 400 }, (_, i) => base(`p${i}`, `p${i}`, { type: 'string' })) });
    expect(elicitLayout({ type: 'object' }, many)).toEqual({ fallback: '500 fields are too many for a form' });
  });
  it('answers a nested object field as JSON, the rest as a form', () => {
    const m = base('', '', { type: 'object', open: true, fields: [base('addr', 'Address', { type: 'object', open: true, fields: [] }), base('n', 'N', { type: 'string' })] });
    const l = elicitLayout({ type: 'object', properties: {} }, m);
    expect('fields' in l && l.fields.map((f) => f.control)).toEqual(['json', 'text']);
  });
});

describe('initial drafts and content', () => {
  it('pre-fills the defaults, and the defaults alone are what Accept would send', () => {
    const fs = fields();
    const d = initialDrafts(fs);
    expect(d).toMatchObject({ name: 'Ada Lovelace', rating: '4.5', guests: '2', subscribe: true, size: '1', toppings: [0], email: '' });
    const r = collect(fs, d);
    expect(r.content).toEqual({ name: 'Ada Lovelace', rating: 4.5, guests: 2, subscribe: true, size: 'M', toppings: ['cheese'] });
    // The required email is missing: nothing may be sent.
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual({ email: ['required'] });
  });
  it('accepts a complete answer and converts each input to its JSON type', () => {
    const fs = fields();
    const d = {
      ...initialDrafts(fs),
      email: 'ada@example.org',
      homepage: 'https://example.org/ada',
      birthday: '1815-12-10',
      meetingAt: '2026-12-01T09:30',
      guests: '3',
      subscribe: false,
      size: '3',
      toppings: [3, 1],
      code: 'ABC',
    };
    const r = collect(fs, d);
    expect(r.errors).toEqual({});
    expect(r.ok).toBe(true);
    expect(r.content).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      homepage: 'https://example.org/ada',
      birthday: '1815-12-10',
      meetingAt: '2026-12-01T09:30:00Z',
      rating: 4.5,
      guests: 3,
      subscribe: false,
      size: 'XL',
      toppings: ['olives', 'peppers'],
      code: 'ABC',
    });
  });
  it('checks every rule, each error under its own field', () => {
    const fs = fields();
    const r = collect(fs, {
      ...initialDrafts(fs),
      name: 'A',
      email: 'not-an-email',
      homepage: 'example.org',
      birthday: '2026-02-30',
      rating: '7',
      guests: '2.5',
      toppings: [0, 1, 2, 3],
      code: 'abc',
    });
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual({
      name: ['at least 2 characters'],
      email: ['must be an email address'],
      homepage: ['must be an absolute URI (with a scheme, e.g. https://)'],
      birthday: ['must be a date (YYYY-MM-DD)'],
      rating: ['must be ≤ 5'],
      guests: ['must be an integer'],
      toppings: ['choose at most 3'],
      code: ['must match the pattern ^[A-Z]{3}$'],
    });
  });
  it('says when a number is not one, and when too few options are chosen', () => {
    const fs = fields();
    const r = collect(fs, { ...initialDrafts(fs), email: 'a@b.c', rating: 'lots', guests: '0', toppings: [] });
    expect(r.errors).toEqual({ rating: ['not a number'], guests: ['must be ≥ 1'] });
    // No topping chosen: the optional multi-select is left out (minItems applies only when sent).
    expect(r.content.toppings).toBeUndefined();
  });
  it('reads a JSON field and names a parse error', () => {
    const f: ElicitField = { field: base('x', 'X', { type: 'json', reason: 'nested' }, { required: true }), control: 'json', raw: {} };
    expect(collect([f], { x: '{"a": 1}' })).toEqual({ ok: true, content: { x: { a: 1 } }, errors: {} });
    expect(collect([f], { x: '{oops' }).errors.x[0]).toMatch(/^not valid JSON/);
    expect(collect([f], { x: '' }).errors).toEqual({ x: ['required'] });
  });
});

describe('formats and patterns', () => {
  it('checks each elicitation format', () => {
    expect(formatError('email', 'a@b.co')).toBeUndefined();
    expect(formatError('email', 'a b@c')).toBeDefined();
    expect(formatError('uri', 'mailto:a@b.co')).toBeUndefined();
    expect(formatError('uri', '/relative/path')).toBeDefined();
    expect(formatError('date', '2024-02-29')).toBeUndefined();
    expect(formatError('date', '2023-02-29')).toBeDefined();
    expect(formatError('date-time', '2026-12-01T09:30:00+01:00')).toBeUndefined();
    expect(formatError('date-time', '2026-12-01T25:30:00Z')).toBeDefined();
    expect(formatError('date-time', '2026-12-01 09:30')).toBeDefined();
    expect(formatError(undefined, 'anything')).toBeUndefined();
  });
  it('matches patterns unanchored, and ignores a pattern that does not compile', () => {
    expect(patternError('[0-9]', 'a1b')).toBeUndefined();
    expect(patternError('^[0-9]+$', 'a1b')).toBe('must match the pattern ^[0-9]+$');
    expect(patternError('(unclosed', 'x')).toBeUndefined();
    expect(patternError(undefined, 'x')).toBeUndefined();
  });
});
