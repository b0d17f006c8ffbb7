// Traffic screen helpers: source filter, request/response pairing, text search.

import type { FrameView } from './types';

export const SOURCES = [
  { value: 'jsonrpc', label: 'JSON-RPC' },
  { value: 'http', label: 'HTTP' },
  { value: 'stderr', label: 'stderr' },
  { value: 'oauth', label: 'OAuth' },
  { value: 'lifecycle', label: 'lifecycle' },
] as const;

/**
 * Every source a frame belongs to (the backend sends the first as `source`): an HTTP body that
 * carries a JSON-RPC message is both `jsonrpc` and `http`.
 */
export function frameSources(f: Pick<FrameView, 'source' | 'kind'>): string[] {
  const out = [f.source as string];
  const add = (s: string) => {
    if (!out.includes(s)) out.push(s);
  };
  if (f.kind === 'http-request' || f.kind === 'http-response' || f.kind === 'sse-event') add('http');
  if (f.kind.startsWith('oauth-')) add('oauth');
  if (f.kind === 'stderr-line') add('stderr');
  if (f.kind === 'lifecycle') add('lifecycle');
  return out;
}

/** Frames shown for the chosen sources and search text. */
export function filterFrames(frames: FrameView[], sources: Set<string>, text: string): FrameView[] {
  const q = text.trim().toLowerCase();
  return frames.filter(
    (f) =>
      frameSources(f).some((s) => sources.has(s)) &&
      (!q || (f.method ?? '').toLowerCase().includes(q) || (f.text ?? '').toLowerCase().includes(q) || (f.meta.note ?? '').toLowerCase().includes(q)),
  );
}

/** The index of the frame answering (or answered by) frame `i`, or -1. */
export function pairIndex(frames: FrameView[], i: number): number {
  const f = frames[i];
  if (!f || f.id === null || f.id === undefined) return -1;
  const key = JSON.stringify(f.id);
  if (f.message === 'request') {
    for (let j = i + 1; j < frames.length; j++) {
      const g = frames[j];
      if ((g.message === 'response' || g.message === 'error') && JSON.stringify(g.id) === key && g.direction !== f.direction) return j;
    }
  } else if (f.message === 'response' || f.message === 'error') {
    for (let j = i - 1; j >= 0; j--) {
      const g = frames[j];
      if (g.message === 'request' && JSON.stringify(g.id) === key && g.direction !== f.direction) return j;
    }
  }
  return -1;
}
