// A deliberately small, dependency-free stand-in MCP client for the conformance suite, used to
// validate run.sh (and the claims in SCENARIOS.md) before mcpscope's CLI exists. It is NOT a
// reference implementation: raw fetch, no robustness. Run through run.sh:
//
//   testenv/conformance/run.sh --command "$PWD/testenv/conformance/standin-client.sh"
//
// Contract (same as adapter.sh): server URL = last argv; MCP_CONFORMANCE_SCENARIO,
// MCP_CONFORMANCE_PROTOCOL_VERSION, MCP_CONFORMANCE_CONTEXT from the environment. Exit 0 = done.
//
// STANDIN_SKIP=<scenario,...> makes it do nothing for those scenarios (used to demonstrate that
// run.sh fails a run with zero checks). STANDIN_CAPS='{...}' overrides the legacy initialize
// capabilities (to probe the wire-schema check).

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION || '2025-11-25';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const modern = version === '2026-07-28';
const CLIENT_INFO = { name: 'mcpscope-standin', version: '0.0.1' };
const log = (...a) => console.error('[standin]', ...a);

let nextId = 1;

// ---------- HTTP + SSE plumbing ----------

/** Parses an SSE body; returns {events:[{id,event,data,retry}], ended:true}. Calls onEvent as they arrive. */
async function readSse(res, onEvent) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  let ev = { data: [] };
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.search(/\r?\n/)) !== -1) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + (buf[i] === '\r' ? 2 : 1));
      if (line === '') {
        if (ev.data.length || ev.id !== undefined || ev.retry !== undefined) {
          const stop = await onEvent({ ...ev, data: ev.data.join('\n') });
          if (stop) {
            await reader.cancel().catch(() => {});
            return;
          }
        }
        ev = { data: [] };
        continue;
      }
      const c = line.indexOf(':');
      const field = c === -1 ? line : line.slice(0, c);
      const val = c === -1 ? '' : line.slice(c + 1).replace(/^ /, '');
      if (field === 'data') ev.data.push(val);
      else if (field === 'id') ev.id = val;
      else if (field === 'event') ev.event = val;
      else if (field === 'retry') ev.retry = Number(val);
    }
    if (done) return;
  }
}

// ---------- legacy (2025-11-25) session ----------

class Legacy {
  constructor(capabilities = {}) {
    this.capabilities = capabilities;
    this.session = undefined;
    this.onRequest = async () => ({ error: { code: -32601, message: 'not supported' } });
  }
  headers(extra = {}) {
    const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
    if (this.session) h['mcp-session-id'] = this.session;
    if (this.protocolVersion) h['mcp-protocol-version'] = this.protocolVersion;
    return h;
  }
  async send(msg) {
    const res = await fetch(url, { method: 'POST', headers: this.headers(), body: JSON.stringify(msg) });
    const sid = res.headers.get('mcp-session-id');
    if (sid && !this.session) this.session = sid;
    return res;
  }
  async initialize() {
    const r = await this.request('initialize', { protocolVersion: version, capabilities: this.capabilities, clientInfo: CLIENT_INFO });
    this.protocolVersion = r.protocolVersion;
    await this.notify('notifications/initialized');
    await this.openStandaloneStream();
    return r;
  }
  /**
   * The standalone GET SSE stream. Servers built on the TS SDK v1 send server->client requests
   * that are not tied to a request id (e.g. `server.request()` in elicitation-sep1034) ONLY here,
   * and drop them when no GET stream is open — so open it, and wait for its 200, before calling
   * tools. A non-200 (405/404/400 from servers without one) is not an error.
   */
  async openStandaloneStream() {
    const h = this.headers({ accept: 'text/event-stream' });
    delete h['content-type'];
    const controller = new AbortController();
    this.standaloneAbort = controller;
    const g = await fetch(url, { method: 'GET', headers: h, signal: controller.signal }).catch(() => undefined);
    if (!g || !g.ok) {
      log(`no standalone GET stream (HTTP ${g?.status})`);
      await g?.arrayBuffer().catch(() => {});
      return;
    }
    readSse(g, async (ev) => {
      if (!ev.data) return false;
      const msg = JSON.parse(ev.data);
      if (msg.method && msg.id !== undefined) {
        const answer = await this.onRequest(msg);
        const r = await this.send({ jsonrpc: '2.0', id: msg.id, ...answer });
        await r.arrayBuffer();
      }
      return false;
    }).catch(() => {});
  }
  async notify(method, params) {
    const res = await this.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
    await res.arrayBuffer();
  }
  /** Sends a request; answers server->client requests on the stream; resumes a cut SSE stream with GET. */
  async request(method, params) {
    const id = nextId++;
    const res = await this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    if (!res.ok) throw new Error(`${method}: HTTP ${res.status} ${await res.text()}`);
    if (!(res.headers.get('content-type') || '').includes('text/event-stream')) {
      const body = await res.json();
      if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
      return body.result;
    }
    let result;
    let lastEventId;
    let retry = 1000;
    const onEvent = async (ev) => {
      if (ev.id !== undefined) lastEventId = ev.id;
      if (ev.retry !== undefined) retry = ev.retry;
      if (!ev.data) return false;
      const msg = JSON.parse(ev.data);
      if (msg.id === id && ('result' in msg || 'error' in msg)) {
        if (msg.error) throw new Error(`${method}: ${JSON.stringify(msg.error)}`);
        result = msg.result;
        return true;
      }
      if (msg.method && msg.id !== undefined) {
        const answer = await this.onRequest(msg);
        const r = await this.send({ jsonrpc: '2.0', id: msg.id, ...answer });
        await r.arrayBuffer();
      }
      return false;
    };
    await readSse(res, onEvent);
    // Stream closed without our response (SEP-1699): wait `retry` ms, then GET with Last-Event-ID.
    for (let attempt = 0; result === undefined && attempt < 3; attempt++) {
      log(`stream closed without a response; reconnecting in ${retry} ms (Last-Event-ID ${lastEventId})`);
      await new Promise((r) => setTimeout(r, retry));
      const h = this.headers({ accept: 'text/event-stream' });
      delete h['content-type'];
      if (lastEventId !== undefined) h['last-event-id'] = lastEventId;
      const g = await fetch(url, { method: 'GET', headers: h });
      if (!g.ok) throw new Error(`GET resume: HTTP ${g.status}`);
      await readSse(g, onEvent);
    }
    return result;
  }
}

// ---------- modern (2026-07-28) stateless requests ----------

function envelope(caps) {
  return {
    'io.modelcontextprotocol/protocolVersion': Modern.version,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': caps,
  };
}

class Modern {
  static version = '2026-07-28';
  constructor(capabilities = {}) {
    this.capabilities = capabilities;
    this.tools = new Map(); // name -> tool (for x-mcp-header mirroring)
  }
  async request(method, params = {}, extraHeaders = {}) {
    for (let attempt = 0; ; attempt++) {
      const id = nextId++;
      const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...(params._meta || {}), ...envelope(this.capabilities) } } };
      const h = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': Modern.version,
        'mcp-method': method,
        ...extraHeaders,
      };
      const name = method === 'resources/read' ? params.uri : method === 'tools/call' || method === 'prompts/get' ? params.name : undefined;
      if (name !== undefined) h['mcp-name'] = name;
      const res = await fetch(url, { method: 'POST', headers: h, body: JSON.stringify(body) });
      let msg;
      if ((res.headers.get('content-type') || '').includes('text/event-stream')) {
        await readSse(res, async (ev) => {
          if (!ev.data) return false;
          const m = JSON.parse(ev.data);
          if (m.id === id) {
            msg = m;
            return true;
          }
          return false;
        });
      } else {
        const text = await res.text();
        msg = text ? JSON.parse(text) : undefined;
      }
      if (!msg) throw new Error(`${method}: HTTP ${res.status}, no JSON-RPC response`);
      if (msg.error?.code === -32022 && attempt === 0) {
        const supported = msg.error.data?.supported ?? [];
        if (supported.includes('2026-07-28')) {
          log(`-32022 (supported ${JSON.stringify(supported)}): retrying once at 2026-07-28`);
          continue;
        }
      }
      if (msg.error) throw new Error(`${method}: ${JSON.stringify(msg.error)}`);
      return msg.result;
    }
  }
  async listTools() {
    const r = await this.request('tools/list');
    for (const t of r.tools ?? []) {
      const problem = invalidHeaderAnnotation(t);
      if (problem) log(`excluding tool ${t.name}: ${problem}`);
      else this.tools.set(t.name, t);
    }
    return r;
  }
  /** tools/call with Mcp-Param-* headers and the MRTR retry loop (elicitation answered with schema defaults). */
  async callTool(name, args = {}) {
    if (!this.tools.has(name)) await this.listTools();
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`refusing to call unknown or excluded tool ${name}`);
    const headers = paramHeaders(tool, args);
    let params = { name, arguments: args };
    for (let round = 0; round < 5; round++) {
      const r = await this.request('tools/call', params, headers);
      if (r.resultType !== 'input_required') return r; // absent resultType means complete
      const inputResponses = {};
      for (const [key, req] of Object.entries(r.inputRequests ?? {})) {
        if (req.method === 'elicitation/create') inputResponses[key] = { action: 'accept', content: defaults(req.params.requestedSchema) };
        else if (req.method === 'roots/list') inputResponses[key] = { roots: [] };
        else inputResponses[key] = { role: 'assistant', content: { type: 'text', text: 'stand-in' }, model: 'none' };
      }
      params = { name, arguments: args, inputResponses };
      if (r.requestState !== undefined) params.requestState = r.requestState;
    }
    throw new Error('too many input_required rounds');
  }
}

function defaults(schema) {
  const out = {};
  for (const [k, p] of Object.entries(schema?.properties ?? {})) if (p && 'default' in p) out[k] = p.default;
  return out;
}

const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
function invalidHeaderAnnotation(tool) {
  const seen = new Set();
  for (const [prop, s] of Object.entries(tool.inputSchema?.properties ?? {})) {
    if (!s || !('x-mcp-header' in s)) continue;
    const h = s['x-mcp-header'];
    if (typeof h !== 'string' || h === '') return `${prop}: empty x-mcp-header`;
    if (!TCHAR.test(h)) return `${prop}: x-mcp-header ${JSON.stringify(h)} is not an HTTP token`;
    if (!['string', 'integer', 'boolean'].includes(s.type)) return `${prop}: x-mcp-header on type ${s.type}`;
    if (seen.has(h.toLowerCase())) return `${prop}: duplicate x-mcp-header ${h}`;
    seen.add(h.toLowerCase());
  }
  return null;
}

function encodeHeaderValue(v) {
  const s = typeof v === 'boolean' ? String(v) : String(v);
  const unsafe = /[^\x20-\x7e]/.test(s) || s !== s.trim();
  return unsafe ? `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=` : s;
}

function paramHeaders(tool, args) {
  const h = {};
  for (const [prop, s] of Object.entries(tool.inputSchema?.properties ?? {})) {
    if (!s || typeof s['x-mcp-header'] !== 'string') continue;
    const v = args[prop];
    if (v === undefined || v === null) continue;
    h[`mcp-param-${s['x-mcp-header']}`] = encodeHeaderValue(v);
  }
  return h;
}

// ---------- scenarios ----------

async function main() {
  if ((process.env.STANDIN_SKIP || '').split(',').includes(scenario)) {
    log(`skipping ${scenario} (STANDIN_SKIP)`);
    return;
  }
  log(`scenario ${scenario} at ${version} against ${url}`);
  if (!modern) {
    const caps = process.env.STANDIN_CAPS
      ? JSON.parse(process.env.STANDIN_CAPS)
      : scenario === 'elicitation-sep1034-client-defaults'
        ? { elicitation: {} }
        : {};
    const c = new Legacy(caps);
    c.onRequest = async (req) =>
      req.method === 'elicitation/create'
        ? { result: { action: 'accept', content: defaults(req.params.requestedSchema) } }
        : { error: { code: -32601, message: 'Method not found' } };
    await c.initialize();
    switch (scenario) {
      case 'initialize':
        return;
      case 'tools_call':
        log(JSON.stringify(await c.request('tools/call', { name: 'add_numbers', arguments: { a: 2, b: 3 } })));
        return;
      case 'elicitation-sep1034-client-defaults':
        log(JSON.stringify(await c.request('tools/call', { name: 'test_client_elicitation_defaults', arguments: {} })));
        return;
      case 'sse-retry':
        log(JSON.stringify(await c.request('tools/call', { name: 'test_reconnection', arguments: {} })));
        return;
      default:
        throw new Error(`stand-in does not know ${scenario} at ${version}`);
    }
  }
  const all = { roots: {}, sampling: {}, elicitation: { form: {} } };
  const c = new Modern(scenario === 'request-metadata' || scenario === 'sep-2322-client-request-state' ? all : {});
  switch (scenario) {
    case 'tools_call':
      log(JSON.stringify(await c.callTool('add_numbers', { a: 2, b: 3 })));
      return;
    case 'request-metadata':
      await c.request('server/discover');
      await c.listTools();
      return;
    case 'sep-2322-client-request-state':
      for (const t of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type']) {
        log(t, JSON.stringify(await new Modern(all).callTool(t)));
      }
      return;
    case 'http-standard-headers':
      await c.listTools();
      await c.callTool('test_headers');
      await c.request('resources/list');
      await c.request('resources/read', { uri: 'file:///path/to/file%20name.txt' });
      await c.request('prompts/list');
      await c.request('prompts/get', { name: 'test_prompt' });
      return;
    case 'http-custom-headers':
      await c.listTools();
      for (const call of context.toolCalls ?? []) await c.callTool(call.name, call.arguments);
      return;
    case 'http-invalid-tool-headers':
      await c.listTools();
      await c.callTool('valid_tool', { region: 'us-west1' });
      return;
    case 'json-schema-ref-no-deref':
      await c.listTools();
      return;
    default:
      throw new Error(`stand-in does not know ${scenario} at ${version}`);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    log('error:', e.message);
    process.exit(1);
  },
);
