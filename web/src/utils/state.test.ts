import { describe, expect, it } from 'vitest';
import { FRAME_WINDOW, applyEvent, applyFrames, initialState, serverData, updateServer } from './state';
import type { FrameView, ServerView, WebEvent } from './types';

/** An event as the stream hands it over (bodies here are partial: only what the test reads). */
const ev = (event: WebEvent['event'], data: unknown): WebEvent => ({ event, data }) as WebEvent;

const sv = (name: string, status: ServerView['status']): ServerView => ({
  name, entry: {}, transport: 'stdio', target: 'x', status, error: null, latencyMs: null, era: null, protocolVersion: null, connection: 0,
});

const frame = (seq: number, server = 'demo'): FrameView => ({
  seq, server, timeUs: seq, direction: 'out', kind: 'stdin-line', source: 'jsonrpc', meta: {}, text: '{}', base64: null,
  size: 2, truncated: false, message: 'request', method: 'ping', id: seq, durationMs: null, lint: null, headers: null,
});

describe('applyEvent', () => {
  it('keeps the last authorization view of each server', () => {
    const v = { server: 'notes', applies: true, state: 'authorizing' as const, summary: null, error: null,
      pending: { id: 'p1', url: 'https://as/authorize', issuer: null, scopes: [], reason: 'login' as const, startedAt: 't' } };
    let s = applyEvent(initialState(), ev('catalog', { servers: [sv('notes', 'connecting'), sv('other', 'connected')] }));
    s = applyEvent(s, ev('auth', v));
    expect(s.auth.notes.pending?.id).toBe('p1');
    s = applyEvent(s, ev('auth', { ...v, state: 'authorized', pending: null }));
    expect(s.auth.notes.state).toBe('authorized');
    s = applyEvent(s, ev('catalog', { servers: [sv('other', 'connected')] }));
    expect(s.auth.notes).toBeUndefined();
  });

  it('keeps a stored grant shown until tokens load or Forget says none is left', () => {
    const stored = { issuer: 'https://as', scope: null, expiresAt: null, obtainedAt: 1, refreshToken: true, clientId: null, profile: 'default' };
    const v = { server: 'notes', applies: true, state: 'none' as const, summary: null, error: null, pending: null };
    let s = applyEvent(initialState(), ev('auth', { ...v, stored }));
    s = applyEvent(s, ev('auth', { ...v, state: 'failed', error: 'x' }));
    expect(s.auth.notes.stored?.issuer).toBe('https://as');
    s = applyEvent(s, ev('auth', { ...v, stored: null }));
    expect(s.auth.notes.stored).toBeNull();
  });

  it('tracks server status', () => {
    let s = applyEvent(initialState(), ev('catalog', { servers: [sv('demo', 'disconnected')] }));
    s = applyEvent(s, ev('status', sv('demo', 'connected')));
    expect(s.servers).toHaveLength(1);
    expect(s.servers[0].status).toBe('connected');
    s = applyEvent(s, ev('status', sv('other', 'connecting')));
    expect(s.servers.map((x) => x.name)).toEqual(['demo', 'other']);
  });

  it('forgets the lists when a new connection starts, and keeps the rest', () => {
    let s = applyEvent(initialState(), ev('catalog', { servers: [sv('demo', 'connected')] }));
    s = updateServer(s, 'demo', (d) => ({ ...d, tools: [{ name: 'echo' }], prompts: [], warnings: [{ server: 'demo', message: 'w', frameSeq: null }] }));
    s = applyEvent(s, ev('status', sv('demo', 'disconnected')));
    expect(serverData(s, 'demo').tools).toHaveLength(1);
    s = applyEvent(s, ev('status', sv('demo', 'connecting')));
    const d = serverData(s, 'demo');
    expect(d.tools).toBeNull();
    expect(d.prompts).toBeNull();
    expect(d.warnings).toHaveLength(1);
  });

  it('flags list changes and clears them on reset', () => {
    let s = applyEvent(initialState(), ev('notification', { server: 'demo', method: 'notifications/tools/list_changed' }));
    expect(serverData(s, 'demo').changed.tools).toBe(true);
    s = applyEvent(s, ev('progress', { server: 'demo', requestId: 'r1', progress: 1, total: 5, message: 'step 1 of 5' }));
    expect(serverData(s, 'demo').progress.r1.message).toBe('step 1 of 5');
    s = applyEvent(s, ev('reset', { server: 'demo' }));
    const d = serverData(s, 'demo');
    expect(d.changed.tools).toBe(false);
    expect(d.progress).toEqual({});
    expect(d.resetCount).toBe(1);
  });

  it('keeps logs and history', () => {
    let s = applyEvent(initialState(), ev('log', { server: 'demo', level: 'info', data: 'hi', timeUs: 1 }));
    expect(serverData(s, 'demo').logs).toHaveLength(1);
    s = applyEvent(s, ev('history', { id: 1, server: 'demo', method: 'ping', status: 'pending', startedAt: '', startedAtUs: 0, durationMs: null, pinned: false }));
    s = applyEvent(s, ev('history', { id: 1, server: 'demo', method: 'ping', status: 'ok', startedAt: '', startedAtUs: 0, durationMs: 3, pinned: false }));
    expect(s.history).toHaveLength(1);
    expect(s.history[0].status).toBe('ok');
  });

  it('bounds frames per server', () => {
    const frames = Array.from({ length: FRAME_WINDOW + 10 }, (_, i) => frame(i));
    const s = applyFrames(initialState(), frames);
    const w = serverData(s, 'demo').frames;
    expect(w.items).toHaveLength(FRAME_WINDOW);
    expect(w.hasOlder).toBe(true);
  });
});

describe('pending interactions', () => {
  const asked = (id: number, server = 'demo', extra: object = {}) => ({
    id, server, historyId: 1, kind: 'elicitationUrl', method: 'elicitation/create', origin: `server request ${id}`, round: null,
    openedAtUs: 0, deadlineUs: 300_000_000, payload: { url: 'https://x.test/', elicitationId: `e-${id}` }, ...extra,
  });
  it('opens and closes every server’s interactions, and an accepted URL one waits for its completion', () => {
    let s = applyEvent(initialState(), ev('interactionOpened', asked(2)));
    s = applyEvent(s, ev('interactionOpened', asked(1, 'other')));
    expect(s.interactions.map((i) => i.id)).toEqual([1, 2]);
    s = applyEvent(s, ev('interactionClosed', { id: 2, server: 'demo', kind: 'elicitationUrl', outcome: 'accepted', historyId: 1, method: 'elicitation/create', round: null, reason: null, answer: {} }));
    expect(s.interactions.map((i) => i.id)).toEqual([1]);
    expect(s.urlWaits).toMatchObject([{ elicitationId: 'e-2', completed: false }]);
    s = applyEvent(s, ev('notification', { server: 'demo', method: 'notifications/elicitation/complete', params: { elicitationId: 'e-2' } }));
    expect(s.urlWaits[0].completed).toBe(true);
  });
  it('drops a URL wait when the call that caused it fails (issue 24: the Waiting dialog stayed over a failed call)', () => {
    let s = applyEvent(initialState(), ev('interactionOpened', asked(3)));
    s = applyEvent(s, ev('interactionClosed', { id: 3, server: 'demo', kind: 'elicitationUrl', outcome: 'accepted', historyId: 1, method: 'elicitation/create', round: null, reason: null, answer: {} }));
    const entry = (status: string) => ({ id: 1, server: 'demo', method: 'tools/call', status, pinned: false, startedAtUs: 0 });
    s = applyEvent(s, ev('history', entry('pending')));
    expect(s.urlWaits).toHaveLength(1);
    s = applyEvent(s, ev('history', entry('error')));
    expect(s.urlWaits).toHaveLength(0);
  });
});
