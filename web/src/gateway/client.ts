// The gateway page's MCP client of the relay (`POST /api/gateways/{name}/mcp`, docs/gateway.md):
// the page speaks MCP to the relay exactly as it would to the gateway, and the relay enforces
// the rules. One client per connection: a 401 or an expired session invalidates it and the page
// makes a new one.
//
// - Connecting follows 002's protocol selection (negotiate.ts): `server/discover` for Auto and
//   2026-07-28, `initialize` + `notifications/initialized` for 2025-11-25 (with or without a
//   session id).
// - 2026-07-28 requests carry `_meta` (protocol version, client identity, empty client
//   capabilities: always ours, also over the user's `_meta`) and the `Mcp-*` routing headers
//   (headers.ts); a tool whose `x-mcp-header` annotations are invalid is excluded.
// - Answers are JSON or a request-scoped SSE stream (sse.ts), both bounded.
// - The bearer token goes in `X-MCP-Gateway-Token` (the relay makes it `Authorization`); it is
//   never put in what the page shows. A relay refusal (`X-Mcpscope-Refusal`) is the relay's
//   rule, not the gateway's answer.

import type { Json, JsonObject } from '../utils/types';
import { paramHeaders, paramHeaderValues, standardHeaders, type ParamHeader } from './headers';
import { checkInitialize, classifyDiscover, clip, LEGACY_VERSION, MODERN_VERSION, type ProtocolMode } from './negotiate';
import { readSse } from './sse';

/** Who the page says it is (`clientInfo`, `io.modelcontextprotocol/clientInfo`). */
export const CLIENT_INFO = { name: 'mcpscope-gateway-inspector', version: '0.1.0' };
/** The dedicated header the relay turns into `Authorization: Bearer` (docs/gateway.md). */
export const TOKEN_HEADER = 'X-MCP-Gateway-Token';
/** The relay's mark on its own refusals. */
export const REFUSAL_HEADER = 'X-Mcpscope-Refusal';
/** Bounds on what the page reads of one answer (the relay's default response cap). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Longer than the relay's default upstream timeout (2 min), so the relay's 504 comes first. */
export const REQUEST_TIMEOUT_MS = 130_000;
/** Pages of a list walked at most (a gateway that always answers a `nextCursor`). */
export const MAX_PAGES = 50;

export type ConnectionKind = 'stateless' | 'session-based' | 'sessionless legacy';

export interface Connection {
  version: string;
  era: 'modern' | 'legacy';
  kind: ConnectionKind;
  /** How the version was chosen (Auto's fallback names its reason). */
  how: string;
  capabilities?: JsonObject;
  serverInfo?: JsonObject;
}

/** One HTTP exchange with the relay, as the Output card shows it. */
export interface Exchange {
  method: string;
  /** The JSON-RPC message sent. */
  request: JsonObject;
  /** The headers sent, without the bearer token. */
  requestHeaders: [string, string][];
  status?: number;
  /** The JSON-RPC response, when there was one. */
  response?: JsonObject;
  /** The body when it was not a JSON-RPC response (bounded text). */
  body?: string;
  /** The answer came as a request-scoped SSE stream; `before`: messages ahead of the response. */
  streamed?: boolean;
  before?: Json[];
  elapsedMs: number;
}

export type FailureKind =
  /** The gateway's 401: a bearer token is needed (or the one given was refused). */
  | 'unauthorized'
  /** The relay refused the exchange (a rule of docs/gateway.md). */
  | 'refused'
  /** 404 on a legacy session: the gateway forgot it. */
  | 'session-expired'
  /** The gateway answered a JSON-RPC error. */
  | 'rpc'
  /** An HTTP status without a JSON-RPC error (403, 5xx, …). */
  | 'http'
  /** No HTTP answer at all. */
  | 'network'
  /** An answer the page cannot use, or a connection 002's rules refuse. */
  | 'protocol'
  /** This client was invalidated (a 401 or an expired session): reconnect. */
  | 'invalidated';

export class GatewayFailure extends Error {
  readonly kind: FailureKind;
  readonly exchange?: Exchange;
  /** The relay's rule, for `refused`. */
  readonly rule?: string;
  constructor(kind: FailureKind, message: string, exchange?: Exchange, rule?: string) {
    super(message);
    this.kind = kind;
    this.exchange = exchange;
    this.rule = rule;
  }
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Json;
  /** The whole definition as listed. */
  raw: JsonObject;
}

export interface ToolList {
  tools: Tool[];
  /** Tools left out for an invalid `x-mcp-header` annotation, with the reason. */
  excluded: { name: string; reason: string }[];
  exchanges: Exchange[];
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments: { name: string; description?: string; required?: boolean }[];
}

export interface ClientOptions {
  /** `/api/gateways/{name}/mcp`. */
  url: string;
  token?: string;
  fetch?: typeof fetch;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `params` with the 2026-07-28 `_meta`: the user's keys kept, ours written last so they are
 *  always right (as mcpscope_proto::era::stamp_modern_meta). */
export function stampModernMeta(params: JsonObject | undefined, version: string): JsonObject {
  const out: JsonObject = { ...(params ?? {}) };
  const meta: JsonObject = isObject(out._meta) ? { ...out._meta } : {};
  meta['io.modelcontextprotocol/protocolVersion'] = version;
  meta['io.modelcontextprotocol/clientCapabilities'] = {};
  meta['io.modelcontextprotocol/clientInfo'] = { ...CLIENT_INFO };
  out._meta = meta;
  return out;
}

export class GatewayClient {
  private readonly url: string;
  private readonly token?: string;
  private readonly fetchFn: typeof fetch;
  private nextId = 1;
  private sessionId?: string;
  private invalid?: string;
  /** The annotations of each tool of the last `tools/list` (2026-07-28 only). */
  private annotations = new Map<string, ParamHeader[]>();
  connection?: Connection;

  constructor(o: ClientOptions) {
    this.url = o.url;
    this.token = o.token || undefined;
    this.fetchFn = o.fetch ?? ((input, init) => fetch(input, init));
  }

  /** Connect with 002's rules for `mode`; the exchanges are returned for the record. */
  async connect(mode: ProtocolMode): Promise<{ connection: Connection; exchanges: Exchange[] }> {
    const exchanges: Exchange[] = [];
    let how = mode === 'auto' ? 'Auto: server/discover' : `${mode} selected`;
    if (mode !== LEGACY_VERSION) {
      const verdict = await this.discover(mode, exchanges);
      if (verdict.verdict === 'modern') {
        const result = exchanges[exchanges.length - 1].response?.result;
        const r = isObject(result) ? result : {};
        const meta = isObject(r._meta) ? r._meta : {};
        const info = meta['io.modelcontextprotocol/serverInfo'];
        this.connection = {
          version: verdict.version,
          era: 'modern',
          kind: 'stateless',
          how,
          capabilities: isObject(r.capabilities) ? r.capabilities : undefined,
          serverInfo: isObject(info) ? info : undefined,
        };
        return { connection: this.connection, exchanges };
      }
      how = `Auto fell back: ${verdict.reason}`;
    }
    await this.initialize(exchanges);
    const init = exchanges.find((e) => e.method === 'initialize');
    const r = isObject(init?.response?.result) ? init.response.result : {};
    this.connection = {
      version: LEGACY_VERSION,
      era: 'legacy',
      kind: this.sessionId ? 'session-based' : 'sessionless legacy',
      how,
      capabilities: isObject(r.capabilities) ? r.capabilities : undefined,
      serverInfo: isObject(r.serverInfo) ? r.serverInfo : undefined,
    };
    return { connection: this.connection, exchanges };
  }

  /** `server/discover` and its verdict; throws when the verdict is to fail. */
  private async discover(mode: 'auto' | typeof MODERN_VERSION, exchanges: Exchange[]) {
    const message = this.message('server/discover', stampModernMeta(undefined, MODERN_VERSION));
    let ex: Exchange;
    try {
      ex = await this.post(message, standardHeaders(MODERN_VERSION, 'server/discover', undefined));
    } catch (e) {
      // No HTTP answer, or a refusal: not era evidence.
      if (e instanceof GatewayFailure && e.exchange) exchanges.push(e.exchange);
      throw e;
    }
    exchanges.push(ex);
    const verdict = classifyDiscover(mode, { status: ex.status, response: ex.response });
    if (verdict.verdict === 'fail') {
      throw new GatewayFailure(verdict.auth ? 'unauthorized' : 'protocol', verdict.reason, ex);
    }
    return verdict;
  }

  /** `initialize` at 2025-11-25, the version checked, then `notifications/initialized`. */
  private async initialize(exchanges: Exchange[]) {
    const message = this.message('initialize', { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { ...CLIENT_INFO } });
    const ex = await this.answered(message, [], exchanges);
    const check = checkInitialize(ex.response?.result);
    if (!check.ok) throw new GatewayFailure('protocol', check.reason, ex);
    const sid = this.lastSessionId;
    if (sid) this.sessionId = sid;
    const note: JsonObject = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const done = await this.post(note, this.legacyHeaders());
    exchanges.push(done);
    if (done.status === undefined || done.status < 200 || done.status >= 300) {
      throw new GatewayFailure('protocol', `notifications/initialized answered HTTP ${done.status}`, done);
    }
  }

  /** A request that must be answered with a result: failures are thrown with their exchange. */
  private async answered(message: JsonObject, headers: [string, string][], exchanges?: Exchange[]): Promise<Exchange> {
    const all = this.connection?.era === 'legacy' || message.method === 'initialize' ? [...headers, ...this.legacyHeaders(message.method === 'initialize')] : headers;
    let ex: Exchange;
    try {
      ex = await this.post(message, all);
    } catch (e) {
      if (e instanceof GatewayFailure && e.exchange) exchanges?.push(e.exchange);
      // The relay answers 404 (rule session-owner) for a session id whose seal it cannot verify
      // (sealed under a key it no longer holds, or not this user's): to an MCP client that is an
      // expired session, as the gateway's own 404 is.
      if (e instanceof GatewayFailure && e.rule === 'session-owner' && e.exchange?.status === 404 && this.sessionId) {
        this.invalidate('the session expired');
        throw new GatewayFailure('session-expired', `mcpscope's relay cannot accept this session id any more (HTTP 404, rule session-owner): it expired`, e.exchange, e.rule);
      }
      throw e;
    }
    exchanges?.push(ex);
    const status = ex.status ?? 0;
    if (status === 401) {
      this.invalidate('the gateway asked for a bearer token (401)');
      throw new GatewayFailure('unauthorized', 'the gateway asks for a bearer token (401)', ex);
    }
    if (status === 404 && this.sessionId && message.method !== 'initialize') {
      this.invalidate('the gateway session expired');
      throw new GatewayFailure('session-expired', 'the gateway no longer knows this session (HTTP 404): it expired', ex);
    }
    const err = ex.response?.error;
    if (isObject(err)) {
      const code = typeof err.code === 'number' ? err.code : '?';
      throw new GatewayFailure('rpc', `JSON-RPC error ${code}: ${typeof err.message === 'string' ? clip(err.message) : ''}`, ex);
    }
    if (status < 200 || status >= 300 || !ex.response || !('result' in ex.response)) {
      throw new GatewayFailure('http', ex.body !== undefined || status ? `the gateway answered HTTP ${status} without a JSON-RPC result` : 'no response', ex);
    }
    return ex;
  }

  private lastSessionId?: string;

  private legacyHeaders(initializing = false): [string, string][] {
    const out: [string, string][] = [];
    if (!initializing) out.push(['MCP-Protocol-Version', LEGACY_VERSION]);
    if (this.sessionId) out.push(['Mcp-Session-Id', this.sessionId]);
    return out;
  }

  private message(method: string, params: JsonObject | undefined): JsonObject {
    const m: JsonObject = { jsonrpc: '2.0', id: this.nextId++, method };
    if (params !== undefined) m.params = params;
    return m;
  }

  private invalidate(why: string) {
    this.invalid ??= why;
  }

  /** Why this client may no longer be used, if it may not. */
  get invalidated(): string | undefined {
    return this.invalid;
  }

  /** Send any request of the connected era (the per-request `_meta` and headers added). */
  async request(method: string, params: JsonObject | undefined, extra: [string, string][] = []): Promise<Exchange> {
    if (this.invalid) throw new GatewayFailure('invalidated', `not connected: ${this.invalid}`);
    const c = this.connection;
    if (!c) throw new GatewayFailure('invalidated', 'not connected');
    if (c.era === 'modern') {
      const stamped = stampModernMeta(params, c.version);
      return this.answered(this.message(method, stamped), [...standardHeaders(c.version, method, stamped), ...extra]);
    }
    return this.answered(this.message(method, params), []);
  }

  /** Every page of `tools/list`; tools with an invalid `x-mcp-header` left out (2026-07-28). */
  async listTools(): Promise<ToolList> {
    const exchanges: Exchange[] = [];
    const raw = await this.listAll('tools/list', 'tools', exchanges);
    const tools: Tool[] = [];
    const excluded: { name: string; reason: string }[] = [];
    this.annotations = new Map();
    for (const t of raw) {
      if (!isObject(t) || typeof t.name !== 'string') continue;
      if (this.connection?.era === 'modern') {
        const h = paramHeaders(t.inputSchema ?? {});
        if (!h.ok) {
          console.warn(`mcpscope: tool ${JSON.stringify(t.name)} excluded: ${h.reason}`);
          excluded.push({ name: t.name, reason: h.reason });
          continue;
        }
        this.annotations.set(t.name, h.headers);
      }
      tools.push({
        name: t.name,
        title: typeof t.title === 'string' ? t.title : undefined,
        description: typeof t.description === 'string' ? t.description : undefined,
        inputSchema: t.inputSchema ?? { type: 'object' },
        raw: t,
      });
    }
    return { tools, excluded, exchanges };
  }

  /** Every page of `prompts/list`. */
  async listPrompts(): Promise<{ prompts: Prompt[]; exchanges: Exchange[] }> {
    const exchanges: Exchange[] = [];
    const raw = await this.listAll('prompts/list', 'prompts', exchanges);
    const prompts: Prompt[] = [];
    for (const p of raw) {
      if (!isObject(p) || typeof p.name !== 'string') continue;
      const args = Array.isArray(p.arguments) ? p.arguments.filter(isObject) : [];
      prompts.push({
        name: p.name,
        title: typeof p.title === 'string' ? p.title : undefined,
        description: typeof p.description === 'string' ? p.description : undefined,
        arguments: args
          .filter((a) => typeof a.name === 'string')
          .map((a) => ({
            name: a.name as string,
            description: typeof a.description === 'string' ? a.description : undefined,
            required: a.required === true,
          })),
      });
    }
    return { prompts, exchanges };
  }

  private async listAll(method: string, key: string, exchanges: Exchange[]): Promise<Json[]> {
    const out: Json[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const ex = await this.request(method, cursor ? { cursor } : undefined);
      exchanges.push(ex);
      const result = ex.response?.result;
      const items = isObject(result) && Array.isArray(result[key]) ? (result[key] as Json[]) : [];
      out.push(...items);
      const next = isObject(result) ? result.nextCursor : undefined;
      if (typeof next !== 'string' || next === '') return out;
      cursor = next;
    }
    return out;
  }

  /** `tools/call`: the routing headers from the tool's annotations in 2026-07-28. */
  callTool(name: string, args: JsonObject, meta?: JsonObject): Promise<Exchange> {
    const params: JsonObject = { name, arguments: args };
    if (meta && Object.keys(meta).length > 0) params._meta = meta;
    const extra = this.connection?.era === 'modern' ? paramHeaderValues(this.annotations.get(name) ?? [], args) : [];
    return this.request('tools/call', params, extra);
  }

  /** `prompts/get`. */
  getPrompt(name: string, args: Record<string, string>): Promise<Exchange> {
    return this.request('prompts/get', { name, arguments: args });
  }

  /** End a legacy session (best effort: the gateway may answer 405). */
  async close(): Promise<void> {
    const sid = this.sessionId;
    this.invalidate('closed');
    if (!sid) return;
    try {
      await this.fetchFn(this.url, {
        method: 'DELETE',
        headers: this.wireHeaders([['MCP-Protocol-Version', LEGACY_VERSION], ['Mcp-Session-Id', sid]]),
        credentials: 'same-origin',
        redirect: 'error',
      });
    } catch {
      // The session ends with the gateway's expiry anyway.
    }
  }

  private wireHeaders(headers: [string, string][]): Headers {
    const h = new Headers();
    for (const [k, v] of headers) h.set(k, v);
    if (this.token) h.set(TOKEN_HEADER, this.token);
    return h;
  }

  /** One POST to the relay; an answer of any status is an Exchange, a refusal or no answer a
   *  GatewayFailure. */
  private async post(message: JsonObject, headers: [string, string][]): Promise<Exchange> {
    const sent: [string, string][] = [
      ['Content-Type', 'application/json'],
      ['Accept', 'application/json, text/event-stream'],
      ...headers,
    ];
    const ex: Exchange = { method: String(message.method), request: message, requestHeaders: sent, elapsedMs: 0 };
    const start = performance.now();
    let res: Response;
    try {
      res = await this.fetchFn(this.url, {
        method: 'POST',
        headers: this.wireHeaders(sent),
        body: JSON.stringify(message),
        credentials: 'same-origin',
        // The relay never redirects; a redirect is an error, never followed.
        redirect: 'error',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (e) {
      ex.elapsedMs = performance.now() - start;
      throw new GatewayFailure('network', `no answer from the relay: ${e instanceof Error ? e.message : String(e)}`, ex);
    }
    ex.status = res.status;
    this.lastSessionId = res.headers.get('mcp-session-id') ?? undefined;
    const refusal = res.headers.get(REFUSAL_HEADER);
    const id = message.id;
    if (refusal === null && res.ok && id !== undefined && (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream') && res.body) {
      ex.streamed = true;
      const read = await readSse(res.body, id as number, MAX_RESPONSE_BYTES);
      ex.elapsedMs = performance.now() - start;
      ex.before = read.before;
      if (read.response) ex.response = read.response;
      else throw new GatewayFailure('protocol', `the SSE response had no answer to request ${String(id)}: ${read.ended}`, ex);
      return ex;
    }
    const text = await boundedText(res, MAX_RESPONSE_BYTES);
    ex.elapsedMs = performance.now() - start;
    const parsed = parseJson(text);
    if (refusal !== null) {
      ex.body = text;
      const err = isObject(parsed) && isObject(parsed.error) ? parsed.error : {};
      const why = typeof err.message === 'string' ? clip(err.message) : `HTTP ${res.status}`;
      throw new GatewayFailure('refused', `mcpscope's relay refused this (rule ${refusal}): ${why}`, ex, refusal);
    }
    if (isObject(parsed) && parsed.jsonrpc === '2.0' && ('result' in parsed || 'error' in parsed)) ex.response = parsed;
    else if (text !== '') ex.body = text;
    return ex;
  }
}

function parseJson(text: string): Json | undefined {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** A body's text, cut at `max` bytes (a hostile gateway cannot fill the page's memory). */
async function boundedText(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let out = '';
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out + decoder.decode();
      total += value.byteLength;
      if (total > max) return `${out}… (cut at ${max} bytes)`;
      out += decoder.decode(value, { stream: true });
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}
