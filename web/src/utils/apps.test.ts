import { describe, expect, it } from 'vitest';
import {
  HostBridge,
  MAX_HEIGHT,
  MAX_PARTIAL_INPUTS,
  MAX_RATE,
  MAX_RESIZES,
  RPC,
  checkLink,
  clampSize,
  classify,
  downloadItems,
  encodeAppArgs,
  messageText,
  modelMayCall,
  parseDeepLink,
  partialInputs,
  toolVisibility,
  type BridgeDeps,
  type HostEnv,
  type HostEvent,
  type ServerAnswer,
} from './apps';
import type { JsonObject } from './types';

const ENV: HostEnv = { version: '0.1.0', theme: 'dark', locale: 'en-US', timeZone: 'UTC', userAgent: 'test', width: 800, height: 600, touch: false, hover: true };

/** A bridge with recording fakes; `clock.t` is the time. */
function setup(answers: Partial<Record<string, ServerAnswer>> = {}, confirm = true) {
  const clock = { t: 10_000 };
  const posted: JsonObject[] = [];
  const frames: { dir: string; text: string; historyId?: number; note?: string }[] = [];
  const events: HostEvent[] = [];
  const calls: { method: string; params: JsonObject }[] = [];
  const opened: string[] = [];
  const asked: unknown[] = [];
  const deps: BridgeDeps = {
    post: (m) => posted.push(m),
    record: (dir, text, historyId, note) => frames.push({ dir, text, historyId, note }),
    server: async (method, params) => {
      calls.push({ method, params });
      return answers[method] ?? { ok: true, result: { content: [] }, historyId: 7 };
    },
    confirm: async (w) => {
      asked.push(w);
      return confirm;
    },
    openLink: (u) => opened.push(u),
    download: () => undefined,
    event: (e) => events.push(e),
    now: () => clock.t,
  };
  const b = new HostBridge(deps, ENV, { name: 'show-app', inputSchema: { type: 'object' } }, { html: '<p>hi</p>', csp: "default-src 'none'", allow: '' });
  return { b, clock, posted, frames, events, calls, opened, asked };
}

const flush = () => new Promise((r) => setTimeout(r, 0));
const req = (id: number | string, method: string, params: JsonObject = {}) => ({ jsonrpc: '2.0', id, method, params });
const note = (method: string, params: JsonObject = {}) => ({ jsonrpc: '2.0', method, params });

/** Through proxy-ready, initialize and initialized. */
async function ready(s: ReturnType<typeof setup>) {
  s.b.setToolInput({ message: 'x' });
  s.b.receive(note('ui/notifications/sandbox-proxy-ready'));
  s.b.receive(req(1, 'ui/initialize', { protocolVersion: '2026-01-26', appInfo: { name: 'a', version: '1' }, appCapabilities: {} }));
  s.b.receive(note('ui/notifications/initialized'));
  await flush();
}

describe('classify', () => {
  it('tells requests, notifications, answers and malformed messages apart', () => {
    expect(classify(req(1, 'ping')).kind).toBe('request');
    expect(classify(note('x')).kind).toBe('notification');
    expect(classify({ jsonrpc: '2.0', id: 1, result: {} }).kind).toBe('response');
    expect(classify({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } }).kind).toBe('error');
    expect(classify('hello')).toMatchObject({ kind: 'invalid' });
    expect(classify([req(1, 'ping')])).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('batch') });
    expect(classify({ jsonrpc: '1.0', id: 3, method: 'ping' })).toEqual({ kind: 'invalid', reason: 'jsonrpc is not "2.0"', id: 3 });
    expect(classify({ jsonrpc: '2.0', id: 4, method: 'x', params: [1] })).toMatchObject({ kind: 'invalid', id: 4 });
    expect(classify({ jsonrpc: '2.0', id: {}, method: 'x' })).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('id') });
    expect(classify({ jsonrpc: '2.0', id: 1, result: {}, error: {} })).toMatchObject({ kind: 'invalid' });
  });
});

describe('bounds', () => {
  it('drops messages too big to record', () => {
    expect(messageText({ a: 'x'.repeat(100) }, 50)).toMatchObject({ dropped: expect.stringContaining('over 50') });
    expect(messageText({ a: 1 })).toEqual({ text: '{"a":1}' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(messageText(cyclic)).toMatchObject({ dropped: expect.stringContaining('not serialisable') });
  });
  it('clamps sizes', () => {
    expect(clampSize({ height: 1e9, width: -5 })).toEqual({ height: MAX_HEIGHT, width: 0 });
    expect(clampSize({ height: 'big' })).toEqual({ height: undefined, width: undefined });
    expect(clampSize({ height: Number.NaN })).toEqual({ height: undefined, width: undefined });
  });
});

describe('checkLink', () => {
  it('opens http(s) only', () => {
    expect(checkLink('https://example.com/a?b')).toEqual({ ok: true, url: 'https://example.com/a?b' });
    expect(checkLink('javascript:alert(1)')).toMatchObject({ ok: false, reason: expect.stringContaining('javascript:') });
    expect(checkLink('JavaScript:alert(1)')).toMatchObject({ ok: false });
    expect(checkLink('data:text/html,<script>1</script>')).toMatchObject({ ok: false, reason: expect.stringContaining('data:') });
    expect(checkLink('file:///etc/passwd')).toMatchObject({ ok: false });
    expect(checkLink('/relative')).toMatchObject({ ok: false, reason: 'it is not an absolute URL' });
    expect(checkLink('http://example.com/')).toMatchObject({ ok: false, reason: expect.stringContaining('only on this machine') });
    expect(checkLink('https://user:pw@example.com/')).toMatchObject({ ok: false });
    expect(checkLink(42)).toMatchObject({ ok: false });
  });
});

describe('downloadItems', () => {
  it('takes embedded text and blobs, refuses the rest', () => {
    const ok = downloadItems({ contents: [{ type: 'resource', resource: { uri: 'file:///r/report.csv', mimeType: 'text/csv', text: 'a,b' } }] });
    expect(ok).toEqual({ ok: true, items: [{ name: 'report.csv', mimeType: 'text/csv', text: 'a,b', blob: undefined }] });
    expect(downloadItems({ contents: [] })).toMatchObject({ ok: false });
    expect(downloadItems({ contents: [{ type: 'resource_link', uri: 'javascript:x' }] })).toMatchObject({ ok: false });
    expect(downloadItems({ contents: [{ type: 'resource', resource: { uri: 'x', text: 'x'.repeat(20) } }] }, 10)).toMatchObject({ ok: false, reason: 'over 10 bytes in all' });
  });
});

describe('HostBridge', () => {
  it('sends the resource after proxy-ready, answers initialize, sends nothing else before initialized', async () => {
    const s = setup();
    s.b.setToolInput({ message: 'x' });
    s.b.contextChanged({ ...ENV, theme: 'light' });
    s.b.receive(note('ui/notifications/sandbox-proxy-ready'));
    expect(s.posted[0]).toMatchObject({ method: 'ui/notifications/sandbox-resource-ready', params: { html: '<p>hi</p>', csp: "default-src 'none'" } });
    s.b.receive(req(1, 'ui/initialize'));
    expect(s.posted).toHaveLength(2);
    const init = s.posted[1] as { id: number; result: JsonObject };
    expect(init.id).toBe(1);
    expect(init.result).toMatchObject({
      protocolVersion: '2026-01-26',
      hostInfo: { name: 'mcpscope', version: '0.1.0' },
      hostContext: { theme: 'light', platform: 'web', displayMode: 'inline', availableDisplayModes: ['inline', 'fullscreen', 'pip'], locale: 'en-US', timeZone: 'UTC' },
    });
    expect(Object.keys(init.result.hostCapabilities as JsonObject)).toEqual(expect.arrayContaining(['openLinks', 'serverTools', 'serverResources', 'logging', 'downloadFile', 'updateModelContext', 'message']));
    expect(s.b.toolResult({ content: [] })).toBe(false);
    s.b.receive(note('ui/notifications/initialized'));
    expect(s.posted[2]).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: { message: 'x' } } });
    expect(s.events).toContainEqual({ type: 'ready' });
    expect(s.b.toolResult({ content: [{ type: 'text', text: 'r' }] }, 3)).toBe(true);
    expect(s.frames.at(-1)).toMatchObject({ dir: 'toApp', historyId: 3 });
    // Every message both ways is recorded.
    expect(s.frames.filter((f) => f.dir === 'toApp')).toHaveLength(s.posted.length);
  });

  it('streams the arguments key by key as tool-input-partial before tool-input', () => {
    const s = setup();
    s.b.setToolInput({ a: 1, b: 'two', c: [3] });
    s.b.receive(note('ui/notifications/sandbox-proxy-ready'));
    s.b.receive(req(1, 'ui/initialize'));
    s.b.receive(note('ui/notifications/initialized'));
    const sent = s.posted.slice(2) as { method: string; params: JsonObject }[];
    expect(sent.map((m) => m.method)).toEqual(['ui/notifications/tool-input-partial', 'ui/notifications/tool-input-partial', 'ui/notifications/tool-input']);
    expect(sent.map((m) => m.params.arguments)).toEqual([{ a: 1 }, { a: 1, b: 'two' }, { a: 1, b: 'two', c: [3] }]);
  });

  it('bounds the partial inputs and sends none for fewer than two keys', () => {
    expect(partialInputs({})).toEqual([]);
    expect(partialInputs({ only: 1 })).toEqual([]);
    const many: JsonObject = {};
    for (let i = 0; i < 50; i++) many[`k${i}`] = i;
    const parts = partialInputs(many);
    expect(parts).toHaveLength(MAX_PARTIAL_INPUTS);
    expect(Object.keys(parts.at(-1)!)).toHaveLength(49);
  });

  it('answers unknown methods -32601 and malformed requests -32600', async () => {
    const s = setup();
    await ready(s);
    s.b.receive(req(9, 'ui/fly-to-the-moon'));
    expect(s.posted.at(-1)).toMatchObject({ id: 9, error: { code: RPC.methodNotFound } });
    s.b.receive({ jsonrpc: '2.0', id: 10, method: 5 });
    expect(s.posted.at(-1)).toMatchObject({ id: 10, error: { code: RPC.invalidRequest } });
    expect(s.frames.some((f) => f.note?.startsWith('malformed: method'))).toBe(true);
    const before = s.posted.length;
    s.b.receive('not json-rpc');
    expect(s.posted).toHaveLength(before);
    expect(s.frames.at(-1)).toMatchObject({ dir: 'fromApp', note: expect.stringContaining('malformed') });
  });

  it('proxies tools/call and carries the refusal and the historyId back', async () => {
    const s = setup({ 'tools/call': { ok: false, code: 'tool_not_visible', message: 'model-only is not visible to apps', historyId: 12 } });
    await ready(s);
    s.b.receive(req(5, 'tools/call', { name: 'model-only', arguments: {} }));
    await flush();
    expect(s.calls).toEqual([{ method: 'tools/call', params: { name: 'model-only', arguments: {} } }]);
    expect(s.posted.at(-1)).toMatchObject({ id: 5, error: { code: RPC.host, message: expect.stringContaining('not visible'), data: { reason: 'tool_not_visible', historyId: 12 } } });
    expect(s.frames.slice(-2).map((f) => [f.dir, f.historyId])).toEqual([
      ['fromApp', 12],
      ['toApp', 12],
    ]);
    s.b.receive(req(6, 'resources/read', { uri: 'ui://x' }));
    await flush();
    expect(s.posted.at(-1)).toMatchObject({ id: 6, result: { content: [] } });
    s.b.receive(req(7, 'ping'));
    expect(s.posted.at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('refuses javascript: links without asking and asks before opening https', async () => {
    const s = setup();
    await ready(s);
    s.b.receive(req(20, 'ui/open-link', { url: 'javascript:alert(1)' }));
    await flush();
    expect(s.asked).toHaveLength(0);
    expect(s.posted.at(-1)).toMatchObject({ id: 20, error: { code: RPC.invalidParams, message: expect.stringContaining('javascript:') } });
    s.b.receive(req(21, 'ui/open-link', { url: 'https://example.com/x' }));
    await flush();
    expect(s.asked).toEqual([{ kind: 'open-link', url: 'https://example.com/x' }]);
    expect(s.opened).toEqual(['https://example.com/x']);
    expect(s.posted.at(-1)).toEqual({ jsonrpc: '2.0', id: 21, result: {} });
  });

  it('a declined link is an error and opens nothing', async () => {
    const s = setup({}, false);
    await ready(s);
    s.b.receive(req(22, 'ui/open-link', { url: 'https://example.com/x' }));
    await flush();
    expect(s.opened).toEqual([]);
    expect(s.posted.at(-1)).toMatchObject({ id: 22, error: { message: expect.stringContaining('declined') } });
  });

  it('honours display modes and answers the actual one', async () => {
    const s = setup();
    await ready(s);
    s.b.receive(req(30, 'ui/request-display-mode', { mode: 'fullscreen' }));
    expect(s.posted.at(-1)).toEqual({ jsonrpc: '2.0', id: 30, result: { mode: 'fullscreen' } });
    s.b.receive(req(31, 'ui/request-display-mode', { mode: 'theatre' }));
    expect(s.posted.at(-1)).toEqual({ jsonrpc: '2.0', id: 31, result: { mode: 'fullscreen' } });
    expect(s.events).toContainEqual({ type: 'display-mode', mode: 'fullscreen' });
  });

  it('shows ui/message and update-model-context and answers {}', async () => {
    const s = setup();
    await ready(s);
    s.b.receive(req(40, 'ui/message', { role: 'user', content: [{ type: 'text', text: 'hi' }] }));
    s.b.receive(req(41, 'ui/update-model-context', { structuredContent: { a: 1 } }));
    expect(s.events.filter((e) => e.type === 'model-note')).toHaveLength(2);
    expect(s.posted.slice(-2)).toEqual([
      { jsonrpc: '2.0', id: 40, result: {} },
      { jsonrpc: '2.0', id: 41, result: {} },
    ]);
  });

  it('drops a flood over the rate and reports the count once the next second starts', async () => {
    const s = setup();
    await ready(s);
    const before = s.frames.length;
    for (let i = 0; i < MAX_RATE * 5; i++) s.b.receive(note('app/noise', { i }));
    const recorded = s.frames.length - before;
    expect(recorded).toBeLessThanOrEqual(MAX_RATE);
    s.clock.t += 1000;
    s.b.receive(note('app/noise'));
    const dropNote = s.frames.find((f) => f.note?.includes('dropped'));
    expect(dropNote?.note).toMatch(/^\d+ app messages dropped/);
    expect(Number(dropNote!.note!.split(' ')[0]) + recorded).toBe(MAX_RATE * 5);
  });

  it('obeys size-changed, then stops when it loops', async () => {
    const s = setup();
    await ready(s);
    s.b.receive(note('ui/notifications/size-changed', { height: 300 }));
    expect(s.events).toContainEqual({ type: 'size', height: 300, width: undefined });
    for (let i = 0; i < MAX_RESIZES + 5; i++) s.b.receive(note('ui/notifications/size-changed', { height: 300 + i }));
    expect(s.events.filter((e) => e.type === 'size-ignored')).toHaveLength(1);
    const sizes = s.events.filter((e) => e.type === 'size').length;
    s.clock.t += 5000;
    s.b.receive(note('ui/notifications/size-changed', { height: 10 }));
    expect(s.events.filter((e) => e.type === 'size').length).toBe(sizes);
  });

  it('teardown waits for the answer, or gives up after the bound', async () => {
    const s = setup();
    await ready(s);
    const p = s.b.teardown('closed by the user', 1000);
    const sent = s.posted.at(-1) as { id: string; method: string };
    expect(sent.method).toBe('ui/resource-teardown');
    s.b.receive({ jsonrpc: '2.0', id: sent.id, result: {} });
    expect(await p).toBe('answered');
    expect(s.b.phase).toBe('closed');
    const s2 = setup();
    await ready(s2);
    expect(await s2.b.teardown('closed', 20)).toBe('timeout');
  });
});

describe('deep links and visibility', () => {
  it('reads ?server=&openApp=&appArgs= and refuses bad appArgs', () => {
    const args = encodeAppArgs({ message: 'héllo / ?' });
    expect(parseDeepLink(`?server=demo&openApp=show-app&appArgs=${args}`)).toEqual({ server: 'demo', openApp: 'show-app', args: { message: 'héllo / ?' } });
    expect(parseDeepLink('?openApp=x')).toBeNull();
    expect(parseDeepLink('?server=demo&openApp=x&appArgs=!!!')).toMatchObject({ error: expect.stringContaining('base64url') });
    expect(parseDeepLink(`?server=demo&openApp=x&appArgs=${encodeAppArgs([1])}`)).toMatchObject({ error: 'appArgs is not a JSON object' });
  });
  it('app-only tools are not the model\'s', () => {
    expect(modelMayCall(toolVisibility({ ui: { resourceUri: 'ui://a', visibility: ['app'] } }))).toBe(false);
    expect(modelMayCall(toolVisibility({ ui: { resourceUri: 'ui://a' } }))).toBe(true);
    expect(modelMayCall(toolVisibility(undefined))).toBe(true);
    expect(modelMayCall(toolVisibility({ ui: { visibility: ['model'] } }))).toBe(true);
  });
});

describe('the sandbox proxy reports', () => {
  it('records a malformed message it forwarded and answers -32600 for its id', async () => {
    const s = setup();
    await ready(s);
    s.b.receive({ jsonrpc: '2.0', method: 'mcpscope/sandbox-malformed', params: { reason: 'jsonrpc is not "2.0"', text: '{"jsonrpc":"1.0","id":5}', id: 5 } });
    expect(s.frames.some((f) => f.dir === 'fromApp' && f.text === '{"jsonrpc":"1.0","id":5}' && f.note === 'malformed: jsonrpc is not "2.0"')).toBe(true);
    expect(s.posted.at(-1)).toMatchObject({ id: 5, error: { code: RPC.invalidRequest } });
    s.b.receive({ jsonrpc: '2.0', method: 'mcpscope/sandbox-dropped', params: { count: 3, reason: 'from the app: a message of 3000000 characters (over 1048576)' } });
    expect(s.events.at(-1)).toMatchObject({ type: 'dropped', count: 3, reason: expect.stringContaining('3000000') });
  });
});

describe('host context changes', () => {
  it('sends only what changed, and only once the app is initialized', async () => {
    const s = setup();
    s.b.contextChanged({ ...ENV, theme: 'light' });
    expect(s.posted).toHaveLength(0);
    await ready(s);
    const n = s.posted.length;
    s.b.contextChanged({ ...ENV, theme: 'dark', width: 900 });
    expect(s.posted.at(-1)).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'dark', containerDimensions: { width: 900, maxHeight: MAX_HEIGHT } } });
    s.b.contextChanged({ ...ENV, theme: 'dark', width: 900 });
    expect(s.posted).toHaveLength(n + 1);
    s.b.setMode('pip');
    expect(s.posted.at(-1)).toMatchObject({ params: { displayMode: 'pip' } });
  });
});
