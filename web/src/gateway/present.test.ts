import { describe, expect, it } from 'vitest';
import { count, messagesText, metaObject, NO_STATS, resultOutcome, serverOf, tokenEstimate } from './present';
import type { Json } from '../utils/types';

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
