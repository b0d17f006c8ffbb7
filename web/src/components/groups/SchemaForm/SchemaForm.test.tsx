import { describe, expect, it } from 'vitest';
import { render } from '../../../test/render';
import type { FormField } from '../../../utils/types';
import { SchemaForm } from './SchemaForm';

const f = (key: string, kind: FormField['kind'], extra: Partial<FormField> = {}): FormField => ({
  key,
  title: key,
  required: false,
  nullable: false,
  kind,
  ...extra,
});

// The JSON the backend sends for a schema with every kind (mcpscope_proto::form, serialised as is).
const model: FormField = f('', {
  type: 'object',
  open: true,
  fields: [
    f('email', { type: 'string', format: 'email' }, { required: true, description: 'Where to write' }),
    f('age', { type: 'number', integer: true, minimum: 0, maximum: 150 }, { default: 30 }),
    f('home', { type: 'object', open: false, fields: [f('street', { type: 'string' }, { required: true })] }, { required: true }),
    f('tags', { type: 'array', items: f('', { type: 'string' }, { required: true }), min_items: 1 }),
    f('plan', { type: 'enum', multi: false, options: [{ value: 'free', label: 'Free' }, { value: 'pro', label: 'Pro' }] }, { nullable: true }),
    f('agree', { type: 'boolean' }),
    f('sure', { type: 'boolean' }, { required: true }),
    f('extra', { type: 'json', reason: 'oneOf of 2 different schemas' }),
    f('when', { type: 'string', format: 'date-time' }),
  ],
});

describe('SchemaForm', () => {
  const html = render(
    <SchemaForm
      field={model}
      value={{ age: 200, home: {}, tags: ['a', 'b'], when: '2026-01-02T03:04:05Z' }}
      onChange={() => undefined}
      errors={[{ path: '/home', message: '"street" is a required property' }]}
    />,
  );

  it('draws a field per property, addressed by JSON pointer', () => {
    for (const p of ['/email', '/age', '/home', '/home/street', '/tags', '/tags/0', '/tags/1', '/plan', '/agree', '/sure', '/extra', '/when']) {
      expect(html).toContain(`data-field="${p}"`);
    }
  });

  it('uses inputs matching formats', () => {
    expect(html).toMatch(/type="email"/);
    expect(html).toMatch(/type="datetime-local"[^>]*value="2026-01-02T03:04:05"|value="2026-01-02T03:04:05"[^>]*type="datetime-local"/);
  });

  it('shows optional booleans as not set / true / false and required ones as a checkbox', () => {
    expect(html).toContain('data-testid="tri-state"');
    expect(html).toContain('not set');
    expect(html).toMatch(/type="checkbox"/);
  });

  it('offers add/remove on arrays and a JSON editor for what a form cannot draw', () => {
    expect(html).toContain('data-testid="array-add"');
    expect(html.match(/data-testid="array-remove"/g)).toHaveLength(2);
    expect(html).toContain('data-testid="field-json"');
    expect(html).toContain('oneOf of 2 different schemas');
  });

  it('puts errors under their fields: bounds as typed, required from the backend', () => {
    const age = html.slice(html.indexOf('data-field="/age"'), html.indexOf('data-field="/home"'));
    expect(age).toContain('must be ≤ 150');
    const street = html.slice(html.indexOf('data-field="/home/street"'));
    expect(street.slice(0, 2000)).toContain('required');
  });

  it('says when there is nothing to fill', () => {
    const empty = render(<SchemaForm field={f('', { type: 'object', open: true, fields: [] })} value={{}} onChange={() => undefined} />);
    expect(empty).toContain('data-empty="true"');
  });
});
