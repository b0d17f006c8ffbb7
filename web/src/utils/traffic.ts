// Traffic screen helpers: source filter, request/response pairing, text search.

import type { FrameView } from './types';

export const SOURCES = [
  { value: 'jsonrpc', label: 'JSON-RPC' },
  { value: 'http', label: 'HTTP' },
  { value: 'stderr', label: 'stderr' },
  { value: 'oauth', label: 'OAuth' },
  { value: 'lifecycle', label: 'lifecycle' },
  { value: 'app', label: 'App' },
] as const;

/** An MCP App bridge message's own fields (`source: "app"`): which app, which open of it. */
export interface AppFrameMeta {
  tool: string;
  instance: string;
  /** `host`: a note of the backend (a refused resource, messages dropped over its bound). */
  direction: 'toApp' | 'fromApp' | 'host';
  note?: string;
}

/** The app fields of a frame, or null for every other source. */
export function appOf(f: Pick<FrameView, 'source'>): AppFrameMeta | null {
  const a = (f as { app?: unknown }).app;
  if (f.source !== 'app' || !a || typeof a !== 'object') return null;
  const m = a as Record<string, unknown>;
  return {
    tool: String(m.tool ?? ''),
    instance: String(m.instance ?? ''),
    direction: m.direction === 'toApp' ? 'toApp' : m.direction === 'host' ? 'host' : 'fromApp',
    note: typeof m.note === 'string' ? m.note : undefined,
  };
}

/** Two frames of one conversation: the same source and, for apps, the same open of the app. */
function sameChannel(a: FrameView, b: FrameView): boolean {
  if (a.source !== b.source && (a.source === 'app' || b.source === 'app')) return false;
  return a.source !== 'app' || appOf(a)?.instance === appOf(b)?.instance;
}

/**
 * The one source chip that shows or hides a frame: its `source` as the backend sends it (the
 * first of those it belongs to). A message carried over HTTP is `jsonrpc`, so unchecking JSON-RPC
 * hides every message whatever the transport (an HTTP body counted as both was never hidden, so
 * the chip did nothing on Streamable HTTP), and unchecking HTTP hides the exchanges that carry no
 * message (202s, streams opened, refusals) but never a message.
 */
export function frameSource(f: Pick<FrameView, 'source'>): string {
  return f.source as string;
}

/** Frames shown for the chosen sources and search text. */
export function filterFrames(frames: FrameView[], sources: Set<string>, text: string): FrameView[] {
  const q = text.trim().toLowerCase();
  return frames.filter(
    (f) =>
      sources.has(frameSource(f)) &&
      (!q ||
        (f.method ?? '').toLowerCase().includes(q) ||
        (f.text ?? '').toLowerCase().includes(q) ||
        (f.meta.note ?? '').toLowerCase().includes(q) ||
        (f.meta.url ?? '').toLowerCase().includes(q) ||
        (appOf(f)?.tool ?? '').toLowerCase().includes(q) ||
        (appOf(f)?.note ?? '').toLowerCase().includes(q)),
  );
}

/** The collapsed row's text of a frame, and the OAuth flow step it belongs to (if any). */
export function frameSummary(f: Pick<FrameView, 'kind' | 'meta' | 'method' | 'text'> & Partial<Pick<FrameView, 'source' | 'message'>>): { text: string; step: string | null } {
  const target = `${f.meta.method ?? ''} ${f.meta.url ?? ''}`.trim();
  switch (f.kind) {
    case 'oauth-request':
      return { text: target, step: f.meta.note ?? null };
    case 'oauth-response':
      // No status: the authorization response the browser brought to the callback.
      return { text: f.meta.status === undefined || f.meta.status === null ? target : `HTTP ${f.meta.status} ← ${target}`, step: f.meta.note ?? null };
    case 'oauth-step':
      return { text: f.meta.note ?? f.text ?? '', step: null };
  }
  const app = f.source ? appOf(f as FrameView) : null;
  if (app) {
    const what = f.method ?? (f.message === 'response' || f.message === 'error' ? 'answer' : app.note ? '' : (f.text ?? '').slice(0, 80));
    return { text: `${app.tool} ${app.direction === 'toApp' ? '→ app' : app.direction === 'host' ? '· host' : '← app'} ${what}${app.note ? ` (${app.note})` : ''}`.replace(/\s+/g, ' ').trim(), step: null };
  }
  if (f.method) return { text: f.method, step: null };
  if (f.kind === 'http-request') return { text: target, step: null };
  if (f.kind === 'http-response') return { text: `HTTP ${f.meta.status ?? ''}`, step: null };
  if (f.meta.note) return { text: f.meta.note, step: null };
  const t = f.text ?? '';
  return { text: t.length > 120 ? t.slice(0, 120) + '…' : t, step: null };
}

/** The value of a header of a frame (case-insensitive), or undefined. */
export function frameHeader(f: Pick<FrameView, 'meta'>, name: string): string | undefined {
  return f.meta.headers?.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

/** A form-encoded body (`a=1&b=x%20y`) as `[name, value]` pairs, decoded; null when it is not one. */
export function formPairs(text: string): [string, string][] | null {
  const t = text.trim();
  if (!t || /\s/.test(t) || !/^[^=&]+=[^&]*(&[^=&]+=[^&]*)*$/.test(t)) return null;
  try {
    return t.split('&').map((kv) => {
      const i = kv.indexOf('=');
      const dec = (x: string) => decodeURIComponent(x.replace(/\+/g, ' '));
      return [dec(kv.slice(0, i)), dec(kv.slice(i + 1))];
    });
  } catch {
    return null;
  }
}

/** The index of the frame answering (or answered by) frame `i`, or -1. */
export function pairIndex(frames: FrameView[], i: number): number {
  const f = frames[i];
  if (!f || f.id === null || f.id === undefined) return -1;
  const key = JSON.stringify(f.id);
  if (f.message === 'request') {
    for (let j = i + 1; j < frames.length; j++) {
      const g = frames[j];
      if ((g.message === 'response' || g.message === 'error') && JSON.stringify(g.id) === key && g.direction !== f.direction && sameChannel(f, g)) return j;
    }
  } else if (f.message === 'response' || f.message === 'error') {
    for (let j = i - 1; j >= 0; j--) {
      const g = frames[j];
      if (g.message === 'request' && JSON.stringify(g.id) === key && g.direction !== f.direction && sameChannel(f, g)) return j;
    }
  }
  return -1;
}
