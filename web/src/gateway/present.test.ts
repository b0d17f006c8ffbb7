import { describe, expect, it } from 'vitest';
import { count, messagesText, metaObject, NO_STATS, resultOutcome, serverOf, tokenEstimate } from './present';
import type { Json } from '../utils/types';
import { formModel, promptForm, validate } from './schema';

describe('serverOf', () => {
  const servers = { toystore_: 'toystore', stateless_: 'stateless-demo', stateless_admin_: 'admin' };
  it('picks the longest matching prefix', () => {
    expect(serverOf('toystore_greet', servers)).toBe('toystore');
    expect(serverOf('stateless_hello_world', servers)).toBe('stateless-demo');
    expect(serverOf('stateless_admin_reset', servers)).toBe('admin');
    expect(serverOf('other', servers)).toBeUndefined();
    expect(serverOf('x', undefined)).toBeUndefined();
  });
});

describe('prompt output', () => {
  const messages: Json = [
    { role: 'user', content: { type: 'text', text: 'Please greet Ada warmly' } },
    { role: 'assistant', content: [{ type: 'text', text: 'Hi' }, { type: 'image', data: 'x', mimeType: 'image/png' }] },
  ];
  it('copies the messages as text and estimates four characters per token', () => {
    const text = messagesText(messages);
    expect(text).toBe('user: Please greet Ada warmly\n\nassistant: Hi\n[image]');
    expect(tokenEstimate('12345678')).toBe(2);
    expect(tokenEstimate('123456789')).toBe(3);
    expect(tokenEstimate('世界世界')).toBe(1);
  });
});

describe('outcomes and statistics', () => {
  it('input_required is a warning, isError an error', () => {
    expect(resultOutcome({ resultType: 'input_required', inputRequests: {} })).toBe('input-required');
    expect(resultOutcome({ content: [], isError: true })).toBe('tool-error');
    expect(resultOutcome({ content: [] })).toBe('ok');
    let s = count(NO_STATS, 'ok');
    s = count(s, 'input-required');
    s = count(s, 'error');
    s = count(s, 'session-expired');
    expect(s).toEqual({ calls: 4, errors: 1, warnings: 2 });
  });

  it('_meta rows: JSON values parsed, text kept', () => {
    expect(metaObject([{ key: 'a', value: '7' }, { key: ' b ', value: 'hello' }, { key: '', value: 'x' }, { key: 'c', value: '{"x":1}' }, { key: 'd', value: '{bad' }])).toEqual({
      a: 7,
      b: 'hello',
      c: { x: 1 },
      d: '{bad',
    });
  });
});

describe('the form of a tool', () => {
  const schema: Json = {
    type: 'object',
    properties: {
      Name: { type: 'string', description: 'Who', minLength: 2 },
      count: { type: 'integer', minimum: 1 },
      loud: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      opts: { type: 'object' },
      mood: { type: 'string', enum: ['happy', 'sad'] },
      note: { type: ['string', 'null'] },
    },
    required: ['Name'],
    additionalProperties: false,
  };
  const form = formModel(schema);
  it('one input per argument; objects and arrays as JSON', () => {
    expect(form.kind.type).toBe('object');
    if (form.kind.type !== 'object') return;
    expect(form.kind.fields.map((f) => [f.key, f.kind.type, f.required])).toEqual([
      ['Name', 'string', true],
      ['count', 'number', false],
      ['loud', 'boolean', false],
      ['tags', 'json', false],
      ['opts', 'json', false],
      ['mood', 'enum', false],
      ['note', 'string', false],
    ]);
    expect(form.kind.fields[6].nullable).toBe(true);
  });

  it('validates locally', () => {
    expect(validate(form, {})).toEqual([{ path: '', message: '"Name" is a required property' }]);
    expect(validate(form, { Name: 'Ada' })).toEqual([]);
    expect(validate(form, { Name: 'A', count: 0.5, tags: {}, opts: [], mood: 'angry', loud: 'yes', extra: 1 })).toEqual([
      { path: '/Name', message: 'at least 2 characters' },
      { path: '/count', message: 'must be an integer' },
      { path: '/loud', message: 'must be true or false' },
      { path: '/tags', message: 'must be a JSON array' },
      { path: '/opts', message: 'must be a JSON object' },
      { path: '/mood', message: 'must be one of the listed values' },
      { path: '', message: '"extra" is not an argument of this tool' },
    ]);
    expect(validate(form, { Name: 'Ada', note: null })).toEqual([]);
  });

  it('prompt arguments are strings', () => {
    const p = promptForm([{ name: 'Name', required: true }]);
    expect(validate(p, {})).toEqual([{ path: '', message: '"Name" is a required property' }]);
  });
});
