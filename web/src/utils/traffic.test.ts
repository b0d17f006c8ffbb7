import { describe, expect, it } from 'vitest';
import { filterFrames, frameSources, pairIndex } from './traffic';
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
  it('counts an HTTP body carrying a message as both jsonrpc and http', () => {
    expect(frameSources({ source: 'jsonrpc', kind: 'http-request' })).toEqual(['jsonrpc', 'http']);
    expect(frameSources({ source: 'stderr', kind: 'stderr-line' })).toEqual(['stderr']);
    const http = fr(9, { kind: 'http-request', message: 'request', method: 'tools/list' });
    expect(filterFrames([http], new Set(['http']), '')).toHaveLength(1);
  });
  it('pairs requests with their answers both ways', () => {
    expect(pairIndex(frames, 0)).toBe(4);
    expect(pairIndex(frames, 4)).toBe(0);
    expect(pairIndex(frames, 2)).toBe(3);
    expect(pairIndex(frames, 1)).toBe(-1);
  });
});
