import { afterEach, describe, expect, it, vi } from 'vitest';
import file from '../../../crates/mcpscope-gateway/tests/form_cases.json';
import { ApiError } from '../lib/api';
import type { FieldError, FormField, Json } from '../utils/types';
import { checkArguments, formOf, gatewayForm } from './forms';

// The answers the backend gives (crates/mcpscope-gateway/tests/schema.rs asserts the web UI and
// the gateway mode give exactly these), and what the page makes of them.
interface Case {
  about: string;
  schema: Json;
  form: FormField;
  checks: { value: Json; errors?: FieldError[]; status?: number; code?: string }[];
}
const cases = file.cases as unknown as Case[];
const tool = cases[0];

/** A fetch that answers `POST /api/form` and `/api/validate` from the cases, and records each call. */
function backend() {
  const calls: { url: string; init: RequestInit; body: { schema: Json; value?: Json } }[] = [];
  const fetchFn = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as { schema: Json; value?: Json };
    calls.push({ url: String(url), init: init ?? {}, body });
    const c = cases.find((x) => JSON.stringify(x.schema) === JSON.stringify(body.schema));
    if (!c) return new Response(JSON.stringify({ error: { code: 'unauthorized', message: 'no token' } }), { status: 401 });
    if (String(url) === '/api/form') return new Response(JSON.stringify(c.form), { status: 200 });
    const check = c.checks.find((k) => JSON.stringify(k.value) === JSON.stringify(body.value));
    if (check?.status) return new Response(JSON.stringify({ error: { code: check.code, message: 'the schema cannot be used for validation: …' } }), { status: check.status });
    return new Response(JSON.stringify({ errors: check?.errors ?? [] }), { status: 200 });
  });
  vi.stubGlobal('fetch', fetchFn);
  return calls;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("002's presentation of the backend's form model", () => {
  const form = gatewayForm(tool.form);
  const fields = form.kind.type === 'object' ? form.kind.fields : [];
  it('one input per top-level argument; objects and arrays as JSON, the rest as the model says', () => {
    expect(fields.map((f) => [f.key, f.kind.type, f.required])).toEqual([
      ['Name', 'string', true],
      ['count', 'number', false],
      ['loud', 'boolean', false],
      ['tags', 'json', false],
      ['opts', 'json', false],
      ['mood', 'enum', false],
      ['note', 'string', false],
    ]);
    expect(fields[3].kind).toEqual({ type: 'json', reason: 'an array' });
    expect(fields[4].kind).toEqual({ type: 'json', reason: 'an object' });
    const model = tool.form.kind.type === 'object' ? tool.form.kind.fields : [];
    for (const i of [0, 1, 2, 5, 6]) expect(fields[i]).toEqual(model[i]);
    expect(fields[6].nullable).toBe(true);
  });

  it('a model that is not an object (a schema it cannot draw) is left as it is', () => {
    const refused = cases[3].form;
    expect(gatewayForm(refused)).toBe(refused);
  });
});

describe("the page asks the backend (POST /api/form, /api/validate), never decides itself", () => {
  it('asks for the form of a schema once, as JSON with the same-origin cookie', async () => {
    const calls = backend();
    const schema = cases[1].schema;
    const a = await formOf(schema);
    const b = await formOf(JSON.parse(JSON.stringify(schema)) as Json);
    expect(b).toBe(a);
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe('/api/form');
    expect(calls[0].init.method).toBe('POST');
    expect(calls[0].init.credentials).toBe('same-origin');
    expect((calls[0].init.headers as Record<string, string>)['content-type']).toBe('application/json');
    expect(calls[0].body).toEqual({ schema });
  });

  it('a form that could not be had is asked for again', async () => {
    const calls = backend();
    const unknown = { type: 'object', title: 'not a case' };
    await expect(formOf(unknown)).rejects.toBeInstanceOf(ApiError);
    await expect(formOf(unknown)).rejects.toThrow('no token');
    expect(calls).toHaveLength(2);
  });

  it("Validate only is the backend's check of the arguments against the schema", async () => {
    const calls = backend();
    for (const check of tool.checks) {
      expect(await checkArguments(tool.schema, check.value)).toEqual(check.errors);
    }
    expect(calls.map((c) => c.url)).toEqual(tool.checks.map(() => '/api/validate'));
    expect(calls[2].body).toEqual({ schema: tool.schema, value: tool.checks[2].value });
  });

  it('a schema the backend will not use is not checked (an error with its reason, not "valid")', async () => {
    backend();
    const refused = cases[3];
    await expect(checkArguments(refused.schema, refused.checks[0].value)).rejects.toThrow('cannot be used');
  });
});
