// 002's negotiation and request rules, against a scripted relay (a fake `fetch` that answers as
// a gateway behind the relay would, and records what the page sent).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '../utils/types';
import { GatewayClient, GatewayFailure } from './client';
import { classifyDiscover, LEGACY_VERSION, MODERN_VERSION } from './negotiate';

interface Sent {
  method: string;
  headers: Headers;
  body?: JsonObject;
}

type Answer = { status?: number; body?: unknown; headers?: Record<string, string>; sse?: string };

/** A relay whose answers are picked by JSON-RPC method; every request is recorded. */
function relay(answer: (m: JsonObject, h: Headers) => Answer) {
  const sent: Sent[] = [];
  const fetchFn = vi.fn(async (_url: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    const body = init?.body ? (JSON.parse(String(init.body)) as JsonObject) : undefined;
    sent.push({ method: String(init?.method), headers, body });
    const a = body ? answer(body, headers) : { status: 204 };
    if (a.sse !== undefined) {
      return new Response(a.sse, { status: a.status ?? 200, headers: { 'content-type': 'text/event-stream', ...a.headers } });
    }
    const text = a.body === undefined ? null : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
    return new Response(text, { status: a.status ?? 200, headers: { 'content-type': 'application/json', ...a.headers } });
  });
  return { sent, fetchFn: fetchFn as unknown as typeof fetch };
}

const result = (m: JsonObject, r: unknown) => ({ body: { jsonrpc: '2.0', id: m.id, result: r } });
const error = (m: JsonObject, code: number, message: string, status = 200, data?: unknown) => ({
  status,
  body: { jsonrpc: '2.0', id: m.id, error: { code, message, ...(data === undefined ? {} : { data }) } },
});

const TOOLS = [
  {
    name: 'stateless_hello_world',
    inputSchema: { type: 'object', properties: { Name: { type: 'string', 'x-mcp-header': 'Name' } }, required: ['Name'] },
  },
  { name: 'broken', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } },
];

/** A 2026-07-28 gateway (discover also advertises 2025-11-25 when `both`). */
function modernGateway(both = true) {
  return (m: JsonObject): Answer => {
    switch (m.method) {
      case 'server/discover':
        return result(m, { supportedVersions: both ? [MODERN_VERSION, LEGACY_VERSION] : [MODERN_VERSION], capabilities: { tools: {} } });
      case 'tools/list':
        return result(m, { tools: TOOLS });
      case 'tools/call':
        return result(m, { content: [{ type: 'text', text: 'Hello, Ada!' }] });
      default:
        return error(m, -32601, 'Method not found', 404);
    }
  };
}

/** A 2025-11-25 gateway: what the TypeScript SDK's server answers to a modern probe. */
function legacyGateway(opts: { session?: string; version?: string; probe?: Answer } = {}) {
  return (m: JsonObject, h: Headers): Answer => {
    const sid = opts.session ? { 'mcp-session-id': opts.session } : undefined;
    switch (m.method) {
      case 'server/discover':
        return opts.probe ?? error(m, -32000, 'Bad Request: Server not initialized', 400);
      case 'initialize':
        return { ...result(m, { protocolVersion: opts.version ?? LEGACY_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'toystore', version: '1' } }), headers: sid };
      case 'notifications/initialized':
        return { status: 202 };
      case 'tools/list':
        if (opts.session && h.get('mcp-session-id') !== opts.session) return { status: 404, body: { jsonrpc: '2.0', id: m.id, error: { code: -32001, message: 'Session not found' } } };
        return result(m, { tools: [{ name: 'toystore_greet', inputSchema: { type: 'object', properties: { Name: { type: 'string' } } } }] });
      default:
        return error(m, -32601, 'Method not found');
    }
  };
}

const methods = (sent: Sent[]) => sent.map((s) => (s.body ? String(s.body.method) : s.method));
const client = (fetchFn: typeof fetch, token?: string) => new GatewayClient({ url: '/api/gateways/g/mcp', fetch: fetchFn, token });

afterEach(() => vi.restoreAllMocks());

describe('Auto', () => {
  it('prefers 2026-07-28: stateless, no initialize', async () => {
    const r = relay(modernGateway());
    const { connection } = await client(r.fetchFn).connect('auto');
    expect(connection).toMatchObject({ version: MODERN_VERSION, era: 'modern', kind: 'stateless' });
    expect(methods(r.sent)).toEqual(['server/discover']);
    const d = r.sent[0];
    expect(d.headers.get('MCP-Protocol-Version')).toBe(MODERN_VERSION);
    expect(d.headers.get('Mcp-Method')).toBe('server/discover');
    expect(d.headers.get('Mcp-Session-Id')).toBeNull();
    expect((d.body!.params as JsonObject)._meta).toEqual({
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'mcpscope-gateway-inspector', version: '0.1.0' },
    });
  });

  it('falls back on a legacy compatibility response, keeping the session id', async () => {
    const r = relay(legacyGateway({ session: 'sess-1' }));
    const c = client(r.fetchFn);
    const { connection } = await c.connect('auto');
    expect(connection).toMatchObject({ version: LEGACY_VERSION, era: 'legacy', kind: 'session-based' });
    expect(connection.how).toContain('legacy compatibility response');
    expect(methods(r.sent)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(r.sent[1].body!.params).toEqual({ protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'mcpscope-gateway-inspector', version: '0.1.0' } });
    expect(r.sent[1].headers.get('Mcp-Method')).toBeNull();
    expect(r.sent[2].headers.get('Mcp-Session-Id')).toBe('sess-1');
    expect(r.sent[2].headers.get('MCP-Protocol-Version')).toBe(LEGACY_VERSION);
    const tools = await c.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['toystore_greet']);
    expect(r.sent[3].headers.get('Mcp-Session-Id')).toBe('sess-1');
    expect(r.sent[3].body!.params).toBeUndefined();
  });

  it.each([
    ['a 404 -32601', (m: JsonObject) => error(m, -32601, 'Method not found', 404)],
    ['a bare 405', () => ({ status: 405, body: '' })],
    ['a 400 with an unreadable body', () => ({ status: 400, body: 'Bad Request' })],
    ['a -32602 in a 200', (m: JsonObject) => error(m, -32602, 'Invalid params')],
    ['a -32022 that advertises only 2025-11-25', (m: JsonObject) => error(m, -32022, 'Unsupported', 400, { supported: [LEGACY_VERSION] })],
  ])('falls back on %s', async (_what, probe) => {
    const r = relay((m, h) => (m.method === 'server/discover' ? probe(m) : legacyGateway()(m, h)));
    const { connection } = await client(r.fetchFn).connect('auto');
    expect(connection).toMatchObject({ version: LEGACY_VERSION, kind: 'sessionless legacy' });
    expect(methods(r.sent)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
  });

  it('falls back when discovery advertises 2025-11-25 only', async () => {
    const r = relay(legacyGateway({ probe: { body: { jsonrpc: '2.0', id: 1, result: { supportedVersions: [LEGACY_VERSION], capabilities: {} } } } }));
    const { connection } = await client(r.fetchFn).connect('auto');
    expect(connection.version).toBe(LEGACY_VERSION);
    expect(connection.how).toContain('advertises 2025-11-25');
  });

  it.each([
    ['a 401 (authentication)', () => ({ status: 401, body: '' }), 'unauthorized'],
    ['a 403 (authorization)', () => ({ status: 403, body: '' }), 'protocol'],
    ['a 502 (server failure)', (m: JsonObject) => error(m, -32603, 'upstream', 502), 'protocol'],
    ['a -32603 in a 200 (server failure)', (m: JsonObject) => error(m, -32603, 'Internal error'), 'protocol'],
    ['a -32020 (modern protocol error)', (m: JsonObject) => error(m, -32020, 'Header mismatch', 400), 'protocol'],
    ['a -32021 (modern protocol error)', (m: JsonObject) => error(m, -32021, 'Missing capability', 400), 'protocol'],
    ['a relay refusal', () => ({ status: 403, body: { error: { code: 'forbidden', message: 'no', rule: 'allowed-origins' } }, headers: { 'x-mcpscope-refusal': 'allowed-origins' } }), 'refused'],
    ['a discover result naming no version we speak', (m: JsonObject) => result(m, { supportedVersions: ['2030-01-01'] }), 'protocol'],
  ])('never downgrades on %s', async (_what, probe, kind) => {
    const r = relay((m, h) => (m.method === 'server/discover' ? probe(m) : legacyGateway()(m, h)));
    const got = await client(r.fetchFn).connect('auto').catch((e: unknown) => e);
    expect(got).toBeInstanceOf(GatewayFailure);
    expect((got as GatewayFailure).kind).toBe(kind);
    expect(methods(r.sent)).toEqual(['server/discover']);
  });

  it('a network failure is not era evidence', async () => {
    const fetchFn = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    const got = await client(fetchFn).connect('auto').catch((e: unknown) => e);
    expect(got).toMatchObject({ kind: 'network' });
    expect(fetchFn).toHaveBeenCalledTimes(1);
  });
});

describe('2026-07-28 (stateless)', () => {
  it('fails against a 2025-11-25 gateway instead of falling back', async () => {
    const r = relay(legacyGateway());
    const got = await client(r.fetchFn).connect(MODERN_VERSION).catch((e: unknown) => e);
    expect(got).toMatchObject({ kind: 'protocol', message: expect.stringContaining('does not support 2026-07-28') });
    expect(methods(r.sent)).toEqual(['server/discover']);
  });

  it('calls a tool with _meta always ours and the Mcp-* headers; excludes a tool with an invalid annotation', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const r = relay(modernGateway(false));
    const c = client(r.fetchFn, 'secret-bearer');
    await c.connect(MODERN_VERSION);
    const list = await c.listTools();
    expect(list.tools.map((t) => t.name)).toEqual(['stateless_hello_world']);
    expect(list.excluded).toEqual([{ name: 'broken', reason: expect.stringContaining('number') }]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('broken'));
    expect(r.sent[1].headers.get('Mcp-Method')).toBe('tools/list');
    expect((r.sent[1].body!.params as JsonObject)._meta).toBeDefined();

    const ex = await c.callTool('stateless_hello_world', { Name: 'Zürich' }, { trace: 'x', 'io.modelcontextprotocol/protocolVersion': '1999-01-01' });
    const call = r.sent[2];
    expect(call.headers.get('Mcp-Method')).toBe('tools/call');
    expect(call.headers.get('Mcp-Name')).toBe('stateless_hello_world');
    expect(call.headers.get('Mcp-Param-Name')).toBe('=?base64?WsO8cmljaA==?=');
    expect(call.headers.get('MCP-Protocol-Version')).toBe(MODERN_VERSION);
    expect(call.headers.get('X-MCP-Gateway-Token')).toBe('secret-bearer');
    expect((call.body!.params as JsonObject)._meta).toEqual({
      trace: 'x',
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'mcpscope-gateway-inspector', version: '0.1.0' },
    });
    // What the Output card shows never holds the token.
    expect(JSON.stringify(ex.requestHeaders)).not.toContain('secret-bearer');
    expect(ex.status).toBe(200);
    expect(ex.response?.result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  it('reads a request-scoped SSE response to the response of its id', async () => {
    const r = relay((m) => {
      if (m.method === 'server/discover') return modernGateway()(m);
      const other = JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} });
      const progress = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
      const mine = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'Hi Ada' }] } });
      return { sse: `: keep-alive\n\nid: 1\ndata:\n\ndata: ${progress}\n\ndata: ${other}\r\n\r\nevent: message\ndata: ${mine}\n\ndata: {"never":"read"}\n\n` };
    });
    const c = client(r.fetchFn);
    await c.connect('auto');
    const ex = await c.callTool('t', {});
    expect(ex.streamed).toBe(true);
    expect(ex.response?.result).toEqual({ content: [{ type: 'text', text: 'Hi Ada' }] });
    expect(ex.before).toHaveLength(2);
  });
});

describe('2025-11-25 (legacy)', () => {
  it('initializes without discovery; no session id is sessionless legacy', async () => {
    const r = relay(legacyGateway());
    const { connection } = await client(r.fetchFn).connect(LEGACY_VERSION);
    expect(connection).toMatchObject({ era: 'legacy', kind: 'sessionless legacy' });
    expect(methods(r.sent)).toEqual(['initialize', 'notifications/initialized']);
  });

  it('rejects a different negotiated version', async () => {
    const r = relay(legacyGateway({ version: '2025-06-18' }));
    const got = await client(r.fetchFn).connect(LEGACY_VERSION).catch((e: unknown) => e);
    expect(got).toMatchObject({ kind: 'protocol', message: expect.stringContaining('negotiated 2025-06-18') });
    expect(methods(r.sent)).toEqual(['initialize']);
  });

  it("the relay's 404 for a session it no longer knows is an expired session too", async () => {
    let forgotten = false;
    const r = relay((m, h) =>
      forgotten && m.method === 'tools/list'
        ? { status: 404, body: { error: { code: 'not_found', message: 'unknown session', rule: 'session-owner' } }, headers: { 'X-Mcpscope-Refusal': 'session-owner' } }
        : legacyGateway({ session: 's' })(m, h),
    );
    const c = client(r.fetchFn);
    await c.connect(LEGACY_VERSION);
    forgotten = true;
    await expect(c.listTools()).rejects.toMatchObject({ kind: 'session-expired', rule: 'session-owner' });
    expect(c.invalidated).toBeDefined();
  });

  it('an expired session (404) invalidates the client', async () => {
    let expired = false;
    const r = relay((m, h) => (expired && m.method === 'tools/list' ? { status: 404, body: '' } : legacyGateway({ session: 's' })(m, h)));
    const c = client(r.fetchFn);
    await c.connect(LEGACY_VERSION);
    expired = true;
    await expect(c.listTools()).rejects.toMatchObject({ kind: 'session-expired' });
    expect(c.invalidated).toContain('expired');
    await expect(c.callTool('toystore_greet', {})).rejects.toMatchObject({ kind: 'invalidated' });
  });
});

describe('during a connection', () => {
  it('a 401 invalidates the client', async () => {
    let locked = false;
    const r = relay((m) => (locked ? { status: 401, body: '', headers: { 'www-authenticate': 'Bearer' } } : modernGateway()(m)));
    const c = client(r.fetchFn);
    await c.connect('auto');
    locked = true;
    await expect(c.callTool('t', {})).rejects.toMatchObject({ kind: 'unauthorized' });
    expect(c.invalidated).toBeDefined();
  });

  it("a relay refusal is the relay's rule, not the gateway's answer", async () => {
    const r = relay((m) =>
      m.method === 'server/discover'
        ? modernGateway()(m)
        : { status: 401, body: { error: { code: 'unauthorized', message: 'no identity', rule: 'identity-missing' } }, headers: { 'X-Mcpscope-Refusal': 'identity-missing' } },
    );
    const c = client(r.fetchFn);
    await c.connect('auto');
    const got = await c.callTool('t', {}).catch((e: unknown) => e);
    expect(got).toMatchObject({ kind: 'refused', rule: 'identity-missing', message: expect.stringContaining("mcpscope's relay refused") });
    expect(c.invalidated).toBeUndefined();
  });

  it('a JSON-RPC error keeps its exchange for the Output card', async () => {
    const r = relay((m) => (m.method === 'tools/call' ? error(m, -32602, 'Unknown tool', 200) : modernGateway()(m)));
    const c = client(r.fetchFn);
    await c.connect('auto');
    const got = (await c.callTool('nope', {}).catch((e: unknown) => e)) as GatewayFailure;
    expect(got.kind).toBe('rpc');
    expect(got.exchange?.response?.error).toMatchObject({ code: -32602 });
    expect(got.exchange?.status).toBe(200);
  });
});

describe('classifyDiscover', () => {
  it('2026-07-28 mode never falls back', () => {
    expect(classifyDiscover(MODERN_VERSION, { status: 404, response: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'x' } } })).toMatchObject({ verdict: 'fail' });
    expect(classifyDiscover(MODERN_VERSION, { status: 200, response: { jsonrpc: '2.0', id: 1, result: { supportedVersions: [LEGACY_VERSION] } } })).toMatchObject({ verdict: 'fail' });
  });
});

describe('hostile answers', () => {
  it("a gateway's error message is quoted at most 500 characters", async () => {
    const r = relay((m) => (m.method === 'tools/call' ? error(m, -32602, 'x'.repeat(100_000)) : modernGateway()(m)));
    const c = client(r.fetchFn);
    await c.connect('auto');
    const got = (await c.callTool('t', {}).catch((e: unknown) => e)) as GatewayFailure;
    expect(got.message.length).toBeLessThan(600);
    expect(JSON.stringify(got.exchange?.response).length).toBeGreaterThan(100_000);
  });
});
