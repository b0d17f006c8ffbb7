import { describe, expect, it } from 'vitest';
import { filterFrames, formPairs, frameSummary, pairIndex } from './traffic';
import type { FrameView } from './types';

const fr = (seq: number, over: Partial<FrameView>): FrameView => ({
  seq, server: 'demo', timeUs: seq, direction: 'out', kind: 'stdin-line', source: 'jsonrpc', meta: {}, text: null, base64: null,
  size: 0, truncated: false, message: null, method: null, id: null, durationMs: null, lint: null, headers: null, ...over,
});

const frames = [
  fr(1, { message: 'request', method: 'tools/call', id: 1, text: '{"method":"tools/call"}' }),
  fr(2, { source: 'stderr', direction: 'in', kind: 'stderr-line', text: 'booting' }),
  fr(3, { message: 'request', method: 'ping', id: 2 }),
  fr(4, { message: 'response', direction: 'in', id: 2, durationMs: 3 }),
  fr(5, { message: 'error', direction: 'in', id: 1, durationMs: 9 }),
];

describe('traffic', () => {
  it('filters by source and text', () => {
    expect(filterFrames(frames, new Set(['stderr']), '').map((f) => f.seq)).toEqual([2]);
    expect(filterFrames(frames, new Set(['jsonrpc', 'stderr']), 'tools').map((f) => f.seq)).toEqual([1]);
  });
  it('lets the JSON-RPC chip hide a message carried over HTTP, and the HTTP chip only bare exchanges', () => {
    const http = fr(9, { kind: 'http-request', message: 'request', method: 'tools/list' });
    const accepted = fr(10, { kind: 'http-response', source: 'http', direction: 'in', meta: { status: 202 } });
    expect(filterFrames([http, accepted], new Set(['http', 'stderr']), '').map((f) => f.seq)).toEqual([10]);
    expect(filterFrames([http, accepted], new Set(['jsonrpc']), '').map((f) => f.seq)).toEqual([9]);
  });
  it('pairs requests with their answers both ways', () => {
    expect(pairIndex(frames, 0)).toBe(4);
    expect(pairIndex(frames, 4)).toBe(0);
    expect(pairIndex(frames, 2)).toBe(3);
    expect(pairIndex(frames, 1)).toBe(-1);
  });
  it('summarises OAuth exchanges and steps', () => {
    const req = fr(10, { kind: 'oauth-request', source: 'oauth', meta: { method: 'POST', url: 'http://as/token', note: 'token request' } });
    const res = fr(11, { kind: 'oauth-response', source: 'oauth', direction: 'in', meta: { method: 'POST', url: 'http://as/token', status: 200, note: 'token request' } });
    const step = fr(12, { kind: 'oauth-step', source: 'oauth', direction: 'local', text: '', meta: { note: 'iss matches the recorded issuer (RFC 9207)' } });
    expect(frameSummary(req)).toEqual({ text: 'POST http://as/token', step: 'token request' });
    expect(frameSummary(res)).toEqual({ text: 'HTTP 200 ← POST http://as/token', step: 'token request' });
    const callback = fr(15, { kind: 'oauth-response', source: 'oauth', direction: 'in', meta: { method: 'GET', url: 'http://127.0.0.1:6274/oauth/callback?code=%5B9%5D&state=s', note: 'authorization response (callback from the browser)' } });
    expect(frameSummary(callback)).toEqual({ text: 'GET http://127.0.0.1:6274/oauth/callback?code=%5B9%5D&state=s', step: 'authorization response (callback from the browser)' });
    expect(frameSummary(step)).toEqual({ text: 'iss matches the recorded issuer (RFC 9207)', step: null });
    expect(frameSummary(fr(13, { kind: 'http-request', meta: { method: 'POST', url: 'http://x/mcp' } })).text).toBe('POST http://x/mcp');
    expect(frameSummary(fr(14, { method: 'tools/call' })).text).toBe('tools/call');
    // The OAuth source filter shows all three, and search reaches the step's note.
    expect(filterFrames([...frames, req, res, step], new Set(['oauth']), '').map((f) => f.seq)).toEqual([10, 11, 12]);
    expect(filterFrames([req, res, step], new Set(['oauth']), 'RFC 9207').map((f) => f.seq)).toEqual([12]);
  });
  it('decodes form bodies', () => {
    expect(formPairs('grant_type=authorization_code&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&scope=a+b')).toEqual([
      ['grant_type', 'authorization_code'],
      ['redirect_uri', 'http://127.0.0.1/cb'],
      ['scope', 'a b'],
    ]);
    expect(formPairs('{"a":1}')).toBeNull();
    expect(formPairs('')).toBeNull();
    expect(formPairs('a=%E0%A4%A')).toBeNull();
  });
});

describe('app frames', () => {
  const base = { text: null, base64: null, size: 10, truncated: false, server: 's', timeUs: 0, kind: 'app-message', meta: {}, durationMs: null, lint: null, headers: null } as unknown as FrameView;
  const app = (seq: number, direction: 'in' | 'out', message: FrameView['message'], id: number | null, instance: string, method: string | null = null, note?: string) =>
    ({ ...base, seq, direction, source: 'app', message, id, method, app: { tool: 'show-app', instance, direction: direction === 'out' ? 'toApp' : 'fromApp', note } }) as unknown as FrameView;
  it('are filtered as App, named by their app, and paired only within one open of the app', () => {
    const mcp = { ...base, seq: 2, source: 'jsonrpc', kind: 'stdout-line', direction: 'in', message: 'response', id: 1, method: null } as unknown as FrameView;
    const frames = [app(1, 'in', 'request', 1, 'a', 'ui/initialize'), mcp, app(3, 'out', 'response', 1, 'b'), app(4, 'out', 'response', 1, 'a')];
    expect(pairIndex(frames, 0)).toBe(3);
    expect(filterFrames(frames, new Set(['app']), '').map((f) => f.seq)).toEqual([1, 3, 4]);
    expect(filterFrames(frames, new Set(['jsonrpc']), '').map((f) => f.seq)).toEqual([2]);
    expect(frameSummary(frames[0]).text).toBe('show-app ← app ui/initialize');
    expect(frameSummary(app(5, 'in', 'invalid', null, 'a', null, 'malformed: jsonrpc is not "2.0"')).text).toBe('show-app ← app (malformed: jsonrpc is not "2.0")');
    expect(filterFrames([app(5, 'in', 'invalid', null, 'a', null, 'malformed: x')], new Set(['app']), 'malformed').length).toBe(1);
  });
});
