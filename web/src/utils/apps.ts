// MCP Apps, the host side of the bridge (../shared/docs/mcp-wire-reference.md §9), with no DOM and
// no fetch: `HostBridge` gets every message the sandbox proxy relays, checks it (shape, size,
// rate), decides what it means and answers through the functions it is given (send to the app,
// record a Traffic frame, call the server, ask the user). The AppFrame component supplies those
// functions; the tests supply fakes. Written by hand rather than with @modelcontextprotocol/ext-apps'
// AppBridge: that one pulls in the MCP client SDK and zod (~149 KB gzip, +53% on the SPA) and
// validates messages itself, so a malformed or flooding app would not be recorded as it is.

import { openable, type Openable } from './openable';
import type { Json, JsonObject } from './types';

/** The Apps protocol version this host speaks (ext-apps `LATEST_PROTOCOL_VERSION`). */
export const APPS_PROTOCOL = '2026-01-26';
/** A message from the app longer than this (as JSON text) is dropped unread. */
export const MAX_MESSAGE = 1024 * 1024;
/** Messages per second from one app before the rest of that second is dropped (and counted). */
export const MAX_RATE = 100;
/** `size-changed` per second before the host stops obeying them. */
export const MAX_RESIZES = 20;
/** The frame's height and width are kept within these (px). */
export const MIN_HEIGHT = 40;
export const MAX_HEIGHT = 6000;
export const MAX_WIDTH = 4000;
/** How long Close waits for the app's `ui/resource-teardown` answer. */
export const TEARDOWN_MS = 3000;

export const DISPLAY_MODES = ['inline', 'fullscreen', 'pip'] as const;
export type DisplayMode = (typeof DISPLAY_MODES)[number];

export type JsonRpcId = string | number;

/** One message from the app, once looked at. */
export type Incoming =
  | { kind: 'request'; id: JsonRpcId; method: string; params: JsonObject }
  | { kind: 'notification'; method: string; params: JsonObject }
  | { kind: 'response'; id: JsonRpcId; result: Json }
  | { kind: 'error'; id: JsonRpcId; error: JsonObject }
  | { kind: 'invalid'; reason: string; id?: JsonRpcId };

function isId(v: unknown): v is JsonRpcId {
  return (typeof v === 'string' && v.length <= 200) || (typeof v === 'number' && Number.isFinite(v));
}

function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** What a JSON-RPC 2.0 message is, or why it is not one. */
export function classify(msg: unknown): Incoming {
  if (!isObject(msg)) return { kind: 'invalid', reason: `not a JSON-RPC object (${Array.isArray(msg) ? 'an array: batches are not part of the bridge' : typeof msg})` };
  const id = isId(msg.id) ? msg.id : undefined;
  if (msg.jsonrpc !== '2.0') return { kind: 'invalid', reason: 'jsonrpc is not "2.0"', id };
  if ('method' in msg) {
    if (typeof msg.method !== 'string' || msg.method === '' || msg.method.length > 200) return { kind: 'invalid', reason: 'method is not a short string', id };
    if (msg.params !== undefined && !isObject(msg.params)) return { kind: 'invalid', reason: 'params is not an object', id };
    const params = (msg.params ?? {}) as JsonObject;
    if ('id' in msg && msg.id !== undefined) {
      if (id === undefined) return { kind: 'invalid', reason: 'id is neither a string nor a number' };
      return { kind: 'request', id, method: msg.method, params };
    }
    return { kind: 'notification', method: msg.method, params };
  }
  if (id === undefined) return { kind: 'invalid', reason: 'neither a request (no method) nor a response (no usable id)' };
  if ('result' in msg && !('error' in msg)) return { kind: 'response', id, result: msg.result as Json };
  if (isObject(msg.error) && !('result' in msg)) return { kind: 'error', id, error: msg.error };
  return { kind: 'invalid', reason: 'a response needs exactly one of result and error (an object)', id };
}

/** The message as JSON text, or why it cannot be recorded whole (too big, not serialisable). */
export function messageText(data: unknown, max = MAX_MESSAGE): { text: string } | { dropped: string } {
  if (typeof data === 'string' && data.length > max) return { dropped: `a ${data.length}-character string (over ${max})` };
  let text: string;
  try {
    text = JSON.stringify(data) ?? String(data);
  } catch (e) {
    return { dropped: `not serialisable as JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  if (text.length > max) return { dropped: `${text.length} characters of JSON (over ${max})` };
  return { text };
}

/** Counts events per second; answers whether this one is within the bound. */
export class RateGate {
  private windowStart = 0;
  private count = 0;
  dropped = 0;
  constructor(
    readonly perSecond: number,
    private readonly now: () => number,
  ) {}
  /** True when the event is allowed; false (and counted) when over the bound. */
  allow(): boolean {
    const t = this.now();
    if (t - this.windowStart >= 1000) {
      this.windowStart = t;
      this.count = 0;
    }
    this.count += 1;
    if (this.count > this.perSecond) {
      this.dropped += 1;
      return false;
    }
    return true;
  }
  /** The drops since the last call (for one note frame), reset. */
  takeDropped(): number {
    const d = this.dropped;
    this.dropped = 0;
    return d;
  }
}

/** Whether the app may ask to open this link (`openable`, the rule every view shares), and why not otherwise. */
export function checkLink(raw: unknown): Openable {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'url is not a non-empty string' };
  if (raw.length > 8192) return { ok: false, reason: `the URL is ${raw.length} characters long (over 8192)` };
  return openable(raw);
}

/** A file the app asks to download (`ui/download-file`): its name, type and bytes (base64 or text). */
export interface DownloadItem {
  name: string;
  mimeType: string;
  text?: string;
  blob?: string;
  /** A linked resource (`resource_link`): offered as a link, never fetched by the host. */
  link?: string;
}

/** The files of a `ui/download-file` request, or why it is refused. */
export function downloadItems(params: JsonObject, maxBytes = 10 * 1024 * 1024): { ok: true; items: DownloadItem[] } | { ok: false; reason: string } {
  const contents = params.contents;
  if (!Array.isArray(contents) || contents.length === 0) return { ok: false, reason: 'contents is not a non-empty array' };
  if (contents.length > 20) return { ok: false, reason: `${contents.length} files at once (over 20)` };
  const items: DownloadItem[] = [];
  let total = 0;
  for (const c of contents) {
    if (!isObject(c)) return { ok: false, reason: 'a content is not an object' };
    if (c.type === 'resource_link') {
      const link = checkLink(c.uri);
      if (!link.ok) return { ok: false, reason: `resource_link: ${link.reason}` };
      items.push({ name: String(c.name ?? link.url), mimeType: String(c.mimeType ?? ''), link: link.url });
      continue;
    }
    const r = c.type === 'resource' && isObject(c.resource) ? c.resource : null;
    if (!r || typeof r.uri !== 'string') return { ok: false, reason: 'a content is neither an embedded resource nor a resource_link' };
    const text = typeof r.text === 'string' ? r.text : undefined;
    const blob = typeof r.blob === 'string' ? r.blob : undefined;
    if (text === undefined && blob === undefined) return { ok: false, reason: `${r.uri}: neither text nor blob` };
    total += text !== undefined ? text.length : Math.floor((blob!.length * 3) / 4);
    if (total > maxBytes) return { ok: false, reason: `over ${maxBytes} bytes in all` };
    const name = r.uri.split(/[/:]/).filter(Boolean).pop() ?? 'download';
    items.push({ name: name.slice(0, 200), mimeType: typeof r.mimeType === 'string' ? r.mimeType : 'application/octet-stream', text, blob });
  }
  return { ok: true, items };
}

/** A `size-changed` request kept within sane bounds; undefined for a side not given. */
export function clampSize(params: JsonObject): { width?: number; height?: number } {
  const num = (v: Json | undefined, lo: number, hi: number) =>
    typeof v === 'number' && Number.isFinite(v) ? Math.round(Math.min(hi, Math.max(lo, v))) : undefined;
  return { width: num(params.width, 0, MAX_WIDTH), height: num(params.height, MIN_HEIGHT, MAX_HEIGHT) };
}

/** What the host knows when it answers `ui/initialize` and later changes. */
export interface HostEnv {
  version: string;
  theme: 'light' | 'dark';
  locale: string;
  timeZone: string;
  userAgent: string;
  width: number;
  height: number;
  touch: boolean;
  hover: boolean;
}

/** The app's tool, as `toolInfo.tool` (name, title, description, inputSchema). */
export interface AppToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Json;
}

/** The most `tool-input-partial` messages one open sends. */
export const MAX_PARTIAL_INPUTS = 10;

/**
 * The `tool-input-partial` messages sent before `tool-input`: the arguments key by key, as a host
 * streaming a model's tool call would (`{a}`, then `{a, b}`, …, never the whole object, which is
 * `tool-input`'s), so an app's partial rendering is exercised. None for fewer than two keys; at
 * most MAX_PARTIAL_INPUTS, the last ones the nearest to the whole.
 */
export function partialInputs(args: JsonObject): JsonObject[] {
  const keys = Object.keys(args);
  const out: JsonObject[] = [];
  const first = Math.max(1, keys.length - MAX_PARTIAL_INPUTS);
  for (let n = first; n < keys.length; n++) {
    const partial: JsonObject = {};
    for (const k of keys.slice(0, n)) partial[k] = args[k];
    out.push(partial);
  }
  return out;
}

export function hostContext(env: HostEnv, tool: AppToolInfo, mode: DisplayMode): JsonObject {
  const t: JsonObject = { name: tool.name, inputSchema: tool.inputSchema ?? { type: 'object' } };
  if (tool.title) t.title = tool.title;
  if (tool.description) t.description = tool.description;
  return {
    toolInfo: { tool: t },
    theme: env.theme,
    displayMode: mode,
    availableDisplayModes: [...DISPLAY_MODES],
    containerDimensions: { width: env.width, maxHeight: MAX_HEIGHT },
    locale: env.locale,
    timeZone: env.timeZone,
    userAgent: env.userAgent,
    platform: 'web',
    deviceCapabilities: { touch: env.touch, hover: env.hover },
  };
}

/** The answer to `ui/initialize`. */
export function initializeResult(env: HostEnv, tool: AppToolInfo, mode: DisplayMode, csp: string): JsonObject {
  return {
    protocolVersion: APPS_PROTOCOL,
    hostInfo: { name: 'mcpscope', version: env.version },
    hostCapabilities: {
      openLinks: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      downloadFile: {},
      updateModelContext: { text: {}, structuredContent: {} },
      message: { text: {} },
      sandbox: { csp: csp ? { effective: csp } : {} },
    },
    hostContext: hostContext(env, tool, mode),
  };
}

/** JSON-RPC error codes the host answers with. */
export const RPC = { invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, host: -32000 } as const;

/** What the host tells the page around it (panels, modal, frame size, display mode). */
export type HostEvent =
  | { type: 'ready' }
  | { type: 'size'; width?: number; height?: number }
  | { type: 'size-ignored'; reason: string }
  | { type: 'display-mode'; mode: DisplayMode }
  | { type: 'model-note'; method: 'ui/message' | 'ui/update-model-context' | 'notifications/message'; params: JsonObject }
  | { type: 'dropped'; count: number; reason: string }
  | { type: 'teardown-requested' };

/** A refusal of the backend, or its answer. */
export type ServerAnswer = { ok: true; result: Json; historyId?: number } | { ok: false; code: string; message: string; historyId?: number };

/** What the bridge is given to act with. */
export interface BridgeDeps {
  /** Post a message to the app (through the proxy). */
  post: (msg: JsonObject) => void;
  /** Record a Traffic frame (the raw JSON text); `historyId` when it caused or answers an MCP request. */
  record: (direction: 'toApp' | 'fromApp', text: string, historyId?: number, note?: string) => void;
  /** An MCP request of the app, sent through the backend with `origin: {app}`. */
  server: (method: string, params: JsonObject) => Promise<ServerAnswer>;
  /** Ask the user (a modal): true when confirmed. */
  confirm: (what: { kind: 'open-link'; url: string } | { kind: 'download'; items: DownloadItem[] }) => Promise<boolean>;
  openLink: (url: string) => void;
  download: (items: DownloadItem[]) => void;
  event: (e: HostEvent) => void;
  now: () => number;
}

type Phase = 'proxy' | 'init' | 'ready' | 'closed';

/** The host side of one open app (one instance). */
export class HostBridge {
  phase: Phase = 'proxy';
  mode: DisplayMode = 'inline';
  private readonly gate: RateGate;
  private readonly resizes: RateGate;
  private resizeStopped = false;
  private nextId = 1;
  private readonly waiting = new Map<JsonRpcId, (m: Incoming) => void>();
  /** Host → app notifications held until the app says `initialized`. */
  private toolInput: JsonObject | null = null;

  constructor(
    private readonly deps: BridgeDeps,
    private env: HostEnv,
    private readonly tool: AppToolInfo,
    private readonly resource: { html: string; csp: string; allow: string },
  ) {
    this.gate = new RateGate(MAX_RATE, deps.now);
    this.resizes = new RateGate(MAX_RESIZES, deps.now);
  }

  /** Send a message to the app and record it. */
  private send(msg: JsonObject, historyId?: number, note?: string) {
    if (this.phase === 'closed') return;
    this.deps.post(msg);
    this.deps.record('toApp', JSON.stringify(msg), historyId, note);
  }
  private answer(id: JsonRpcId, result: Json, historyId?: number) {
    this.send({ jsonrpc: '2.0', id, result }, historyId);
  }
  private fail(id: JsonRpcId, code: number, message: string, data?: JsonObject, historyId?: number) {
    const error: JsonObject = { code, message };
    if (data) error.data = data;
    this.send({ jsonrpc: '2.0', id, error }, historyId);
  }

  /** The arguments to send as `tool-input` once the app is initialized. */
  setToolInput(args: JsonObject) {
    this.toolInput = args;
  }

  /** The tool's result (or cancellation), sent when the app is ready (else dropped with a note). */
  toolResult(result: JsonObject, historyId?: number) {
    if (this.phase !== 'ready') return false;
    this.send({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result }, historyId);
    return true;
  }
  toolCancelled(reason: string) {
    if (this.phase !== 'ready') return false;
    this.send({ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason } });
    return true;
  }

  /** Theme or size changed: a partial host context, only after initialized. */
  contextChanged(env: HostEnv) {
    const before = hostContext(this.env, this.tool, this.mode);
    this.env = env;
    const after = hostContext(env, this.tool, this.mode);
    const diff: JsonObject = {};
    for (const k of Object.keys(after)) if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) diff[k] = after[k];
    if (this.phase === 'ready' && Object.keys(diff).length > 0) this.send({ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: diff });
  }

  /** The display mode the page actually shows (after a request or a user action). */
  setMode(mode: DisplayMode) {
    if (mode === this.mode) return;
    this.mode = mode;
    if (this.phase === 'ready') this.send({ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { displayMode: mode } });
  }

  /** Host → app request; resolves with the app's answer, or null after `ms`. */
  request(method: string, params: JsonObject, ms: number): Promise<Incoming | null> {
    const id = `host-${this.nextId++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(null);
      }, ms);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** `ui/resource-teardown`, waited for at most `ms`; then the bridge is closed. */
  async teardown(reason: string, ms = TEARDOWN_MS): Promise<'answered' | 'timeout' | 'error'> {
    // Before the app loaded there is nothing to tear down (nor anyone to answer).
    let outcome: 'answered' | 'timeout' | 'error' = 'answered';
    if (this.phase === 'ready' || this.phase === 'init') {
      const m = await this.request('ui/resource-teardown', { reason }, ms);
      outcome = m === null ? 'timeout' : m.kind === 'response' ? 'answered' : 'error';
    }
    this.close();
    return outcome;
  }

  close() {
    this.phase = 'closed';
    for (const w of this.waiting.values()) w({ kind: 'invalid', reason: 'closed' });
    this.waiting.clear();
  }

  /** One message the proxy relayed (`event.data`). */
  receive(data: unknown) {
    if (this.phase === 'closed') return;
    if (!this.gate.allow()) {
      if (this.gate.dropped === 1) this.deps.event({ type: 'dropped', count: 1, reason: `over ${MAX_RATE} messages per second` });
      return;
    }
    const dropped = this.gate.takeDropped();
    if (dropped > 0) {
      const note = `${dropped} app messages dropped (over ${MAX_RATE} per second)`;
      this.deps.record('fromApp', '', undefined, note);
      this.deps.event({ type: 'dropped', count: dropped, reason: note });
    }
    const t = messageText(data);
    if ('dropped' in t) {
      this.deps.record('fromApp', '', undefined, `dropped unread: ${t.dropped}`);
      this.deps.event({ type: 'dropped', count: 1, reason: t.dropped });
      return;
    }
    const m = classify(data);
    if (m.kind === 'invalid') {
      this.deps.record('fromApp', t.text, undefined, `malformed: ${m.reason}`);
      if (m.id !== undefined) this.fail(m.id, RPC.invalidRequest, `Invalid Request: ${m.reason}`);
      return;
    }
    // Proxied requests are recorded when the backend answers (so the frame carries the historyId).
    const proxied = m.kind === 'request' && (m.method === 'tools/call' || m.method === 'resources/read' || m.method === 'resources/list' || m.method === 'resources/templates/list');
    const wrapped = m.kind === 'notification' && m.method === 'mcpscope/sandbox-malformed';
    if (!proxied && !wrapped) this.deps.record('fromApp', t.text);
    if (m.kind === 'response' || m.kind === 'error') return this.onAnswer(m);
    if (m.kind === 'notification') return this.onNotification(m.method, m.params);
    void this.onRequest(m.id, m.method, m.params, t.text);
  }

  private onAnswer(m: Incoming & { id: JsonRpcId }) {
    const w = this.waiting.get(m.id);
    if (w) {
      this.waiting.delete(m.id);
      w(m);
    }
  }

  private onNotification(method: string, params: JsonObject) {
    switch (method) {
      case 'ui/notifications/sandbox-proxy-ready':
        if (this.phase !== 'proxy') return;
        this.phase = 'init';
        this.send({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params: { html: this.resource.html, csp: this.resource.csp, permissions: this.resource.allow } });
        return;
      case 'ui/notifications/initialized':
        if (this.phase !== 'init') return;
        this.phase = 'ready';
        this.deps.event({ type: 'ready' });
        for (const partial of partialInputs(this.toolInput ?? {})) {
          this.send({ jsonrpc: '2.0', method: 'ui/notifications/tool-input-partial', params: { arguments: partial } });
        }
        this.send({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: this.toolInput ?? {} } });
        return;
      case 'ui/notifications/size-changed':
        return this.onSize(params);
      case 'ui/notifications/request-teardown':
        this.deps.event({ type: 'teardown-requested' });
        return;
      case 'notifications/message':
        this.deps.event({ type: 'model-note', method: 'notifications/message', params });
        return;
      case 'mcpscope/sandbox-malformed': {
        // A message of the app that the proxy found not to be JSON-RPC (its head, and why).
        const reason = String(params.reason ?? 'not JSON-RPC').slice(0, 200);
        this.deps.record('fromApp', String(params.text ?? '').slice(0, 4096), undefined, `malformed: ${reason}`);
        if (isId(params.id)) this.fail(params.id, RPC.invalidRequest, `Invalid Request: ${reason}`);
        return;
      }
      case 'mcpscope/sandbox-dropped': {
        // The proxy's report of what it did not relay (shape, size, rate).
        const count = typeof params.count === 'number' ? params.count : 1;
        this.deps.event({ type: 'dropped', count, reason: `the sandbox proxy dropped ${count}: ${String(params.reason ?? '')}`.slice(0, 300) });
        return;
      }
      default:
        return;
    }
  }

  private onSize(params: JsonObject) {
    if (this.resizeStopped) return;
    if (!this.resizes.allow()) {
      this.resizeStopped = true;
      this.deps.event({ type: 'size-ignored', reason: `more than ${MAX_RESIZES} size changes in a second: the app loops, its later sizes are ignored` });
      return;
    }
    const s = clampSize(params);
    if (s.width !== undefined || s.height !== undefined) this.deps.event({ type: 'size', ...s });
  }

  private async onRequest(id: JsonRpcId, method: string, params: JsonObject, text: string) {
    switch (method) {
      case 'ui/initialize':
        return this.answer(id, initializeResult(this.env, this.tool, this.mode, this.resource.csp));
      case 'ping':
        return this.answer(id, {});
      case 'ui/open-link':
        return this.onOpenLink(id, params);
      case 'ui/download-file':
        return this.onDownload(id, params);
      case 'ui/message':
      case 'ui/update-model-context':
        this.deps.event({ type: 'model-note', method, params });
        return this.answer(id, {});
      case 'ui/request-display-mode':
        return this.onDisplayMode(id, params);
      case 'tools/call':
      case 'resources/read':
      case 'resources/list':
      case 'resources/templates/list':
        return this.onProxied(id, method, params, text);
      default:
        return this.fail(id, RPC.methodNotFound, `Method not found: ${method} is not a method this host offers an app`);
    }
  }

  private async onOpenLink(id: JsonRpcId, params: JsonObject) {
    const c = checkLink(params.url);
    if (!c.ok) return this.fail(id, RPC.invalidParams, `ui/open-link refused: ${c.reason}`);
    const yes = await this.deps.confirm({ kind: 'open-link', url: c.url });
    if (!yes) return this.fail(id, RPC.host, 'the user declined to open the link');
    this.deps.openLink(c.url);
    this.answer(id, {});
  }

  private async onDownload(id: JsonRpcId, params: JsonObject) {
    const d = downloadItems(params);
    if (!d.ok) return this.fail(id, RPC.invalidParams, `ui/download-file refused: ${d.reason}`);
    const yes = await this.deps.confirm({ kind: 'download', items: d.items });
    if (!yes) return this.answer(id, { isError: true });
    this.deps.download(d.items);
    this.answer(id, {});
  }

  private onDisplayMode(id: JsonRpcId, params: JsonObject) {
    const want = params.mode;
    if (typeof want === 'string' && (DISPLAY_MODES as readonly string[]).includes(want)) {
      this.mode = want as DisplayMode;
      this.deps.event({ type: 'display-mode', mode: this.mode });
    }
    this.answer(id, { mode: this.mode });
  }

  private async onProxied(id: JsonRpcId, method: string, params: JsonObject, text: string) {
    const a = await this.deps.server(method, params);
    this.deps.record('fromApp', text, a.historyId);
    if (a.ok) return this.answer(id, a.result, a.historyId);
    const data: JsonObject = { reason: a.code };
    if (a.historyId !== undefined) data.historyId = a.historyId;
    this.fail(id, RPC.host, `${method} refused by the host: ${a.message}`, data, a.historyId);
  }
}

// --- the web API's shapes (docs/web-api.md "MCP Apps") ---

/** One app tool of `GET /api/servers/:name/apps`. */
export interface AppTool {
  tool: string;
  title?: string;
  description?: string;
  resourceUri: string;
  visibility: string[];
  deprecatedKey: boolean;
  inputSchema: Json;
  warnings: string[];
}

export interface AppsList {
  apps: AppTool[];
  ignored: { tool: string; reason: string }[];
}

/** `POST /api/servers/:name/apps/:tool/resource`: the checked UI resource. */
export interface AppResource {
  historyId: number;
  uri: string;
  mimeType: string;
  html: string;
  size: number;
  csp: string;
  declaredCsp: JsonObject | null;
  permissions: { camera: boolean; microphone: boolean; geolocation: boolean; clipboardWrite: boolean };
  allow: string;
  domain?: string;
  prefersBorder?: boolean;
  warnings: string[];
}

/** `POST /api/servers/:name/apps/frames`. */
export interface AppFrameBody {
  app: string;
  instance: string;
  direction: 'toApp' | 'fromApp';
  message: string;
  historyId?: number;
  note?: string;
}

/** `GET /api/about` (the part the Apps tab reads). */
export interface About {
  version: string;
  sandbox?: { url: string } | null;
}

/** Whether the model (the Tools tab) may call a tool of this visibility. */
export function modelMayCall(visibility: string[] | undefined): boolean {
  return !visibility || visibility.length === 0 || visibility.includes('model');
}

/** The visibility of a listed tool (`_meta.ui.visibility`; default both). */
export function toolVisibility(meta: JsonObject | undefined): string[] {
  const ui = meta?.ui;
  const v = ui && typeof ui === 'object' && !Array.isArray(ui) ? (ui as JsonObject).visibility : undefined;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : ['model', 'app'];
}

/** The deep link `?server=&openApp=&appArgs=<base64url JSON>`, or null; `error` when appArgs is bad. */
export function parseDeepLink(search: string): { server: string; openApp: string | null; args: JsonObject; error?: string } | null {
  const q = new URLSearchParams(search);
  const server = q.get('server');
  if (!server) return null;
  const openApp = q.get('openApp');
  const raw = q.get('appArgs');
  if (!raw) return { server, openApp, args: {} };
  try {
    const b64 = raw.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
    const v = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    if (!isObject(v)) return { server, openApp, args: {}, error: 'appArgs is not a JSON object' };
    return { server, openApp, args: v };
  } catch (e) {
    return { server, openApp, args: {}, error: `appArgs is not base64url JSON (${e instanceof Error ? e.message : String(e)})` };
  }
}

/** base64url of a JSON value (what a deep link's appArgs holds). */
export function encodeAppArgs(v: Json): string {
  const bytes = new TextEncoder().encode(JSON.stringify(v));
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
