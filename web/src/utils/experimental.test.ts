import { describe, expect, it } from 'vitest';
import {
  addSent,
  EMPTY_EDITOR,
  experimentalNames,
  rawTemplate,
  rpcErrorLine,
  SENT_LIMIT,
  sendBody,
  sentLabel,
  switchOn,
  withEntry,
  withSwitch,
  type CapabilitiesView,
  type SendResult,
  type SentEntry,
  type StandardCapability,
} from './experimental';

const sampling: StandardCapability = { path: 'sampling', eras: ['legacy', 'modern'], description: '', default: { legacy: true, modern: true }, chosen: null };
const tools: StandardCapability = { path: 'sampling.tools', eras: ['legacy', 'modern'], description: '', default: { legacy: false, modern: false }, chosen: null };

describe('the raw tester model', () => {
  it('starts the raw editor from the fields: an id only for a request', () => {
    expect(JSON.parse(rawTemplate(EMPTY_EDITOR))).toEqual({ jsonrpc: '2.0', id: 1, method: 'experimental/myMethod', params: { key: 'value' } });
    expect(JSON.parse(rawTemplate({ kind: 'notification', method: 'notifications/x', params: undefined }))).toEqual({ jsonrpc: '2.0', method: 'notifications/x' });
  });

  it('sends the text as typed when raw, the fields otherwise', () => {
    expect(sendBody({ ...EMPTY_EDITOR, raw: true, rawText: '{oops' }, 500, 'r1')).toEqual({ raw: '{oops', requestId: 'r1', timeoutMs: 500 });
    expect(sendBody({ ...EMPTY_EDITOR, method: ' ping ' }, undefined, 'r2')).toEqual({ kind: 'request', method: 'ping', params: { key: 'value' }, requestId: 'r2' });
  });

  it('labels a send by its method, or by what the raw body is', () => {
    expect(sentLabel(EMPTY_EDITOR)).toBe('experimental/myMethod');
    expect(sentLabel({ ...EMPTY_EDITOR, raw: true, rawText: '{"jsonrpc":"2.0","method":"tools/list","id":3}' })).toBe('tools/list (raw)');
    expect(sentLabel({ ...EMPTY_EDITOR, raw: true, rawText: 'not json' })).toBe('not JSON (raw)');
    expect(sentLabel({ ...EMPTY_EDITOR, raw: true, rawText: '[]' })).toBe('batch (raw)');
  });

  it('names a JSON-RPC error by its code', () => {
    const r = { rpcError: { code: -32601, message: 'method not found: x', name: 'Method not found' } } as SendResult;
    expect(rpcErrorLine(r)).toBe('JSON-RPC error -32601 Method not found: method not found: x');
    expect(rpcErrorLine({} as SendResult)).toBeNull();
  });

  it('keeps the history newest first and bounded', () => {
    let list: SentEntry[] = [];
    for (let i = 0; i < SENT_LIMIT + 5; i++) list = addSent(list, { at: i, label: `m${i}`, outcome: 'result', durationMs: 1, form: EMPTY_EDITOR });
    expect(list).toHaveLength(SENT_LIMIT);
    expect(list[0].label).toBe(`m${SENT_LIMIT + 4}`);
  });
});

describe('the capability switches', () => {
  it('show the choice, else the default of the era', () => {
    expect(switchOn(sampling, 'legacy')).toBe(true);
    expect(switchOn({ ...sampling, chosen: false }, 'legacy')).toBe(false);
  });

  it('store only what differs from the default', () => {
    const off = withSwitch({}, sampling, 'legacy', false);
    expect(off.standard).toEqual({ sampling: false });
    expect(withSwitch(off, sampling, 'legacy', true).standard).toEqual({});
    expect(withSwitch({}, tools, 'modern', true).standard).toEqual({ 'sampling.tools': true });
  });

  it('add and remove experimental entries, offering the server\'s own names', () => {
    const s = withEntry({}, 'experimental', 'custom_analytics', {});
    expect(s.experimental).toEqual({ custom_analytics: {} });
    expect(withEntry(s, 'experimental', 'custom_analytics', null).experimental).toEqual({});
    const view = { settings: s, serverExperimental: null } as unknown as CapabilitiesView;
    expect(experimentalNames(view, { streaming_v2: {} })).toEqual(['streaming_v2', 'custom_analytics']);
  });
});
