// The Experimental panel's model (docs/web-api.md, "Experimental panel"): what `POST
// /api/servers/:name/send` answers, the capabilities view, and the pure decisions the screen
// draws from them — the raw template, the one-line outcome, the session's send history, the
// state of each capability switch. No protocol logic: the backend sends, envelopes and judges.

import type { Era, EraPreference, FrameView, Json, JsonObject } from './types';

export type SendKind = 'request' | 'notification';

/** The body of `POST /api/servers/:name/send`. */
export interface SendBody {
  kind?: SendKind;
  method?: string;
  params?: JsonObject;
  raw?: string;
  requestId?: string;
  timeoutMs?: number | null;
}

export type SendOutcome = 'result' | 'error' | 'sent' | 'reply' | 'noReply' | 'timeout' | 'cancelled' | 'failed';

/** `SendResult`. */
export interface SendResult {
  historyId: number;
  requestId: string;
  raw: boolean;
  era: Era;
  kind: 'request' | 'notification' | 'message';
  sent?: { text: string; size: number; truncated: boolean };
  id?: number | string | null;
  durationMs: number;
  outcome: SendOutcome;
  summary: string;
  response?: JsonObject | null;
  responseText?: string;
  responseSize?: number;
  truncated?: boolean;
  rpcError?: { code: number; message: string; data?: Json; name?: string };
  reply?: FrameView;
  waitedMs?: number;
  error?: { code: string; message: string; [k: string]: unknown };
}

/** The stored settings (`clientCapabilities` of the catalog entry). */
export interface CapabilitySettings {
  standard?: Record<string, boolean>;
  experimental?: Record<string, JsonObject>;
  extensions?: Record<string, JsonObject>;
}

/** One capability of the spec, as the backend offers it. */
export interface StandardCapability {
  path: string;
  eras: Era[];
  description: string;
  /** Whether mcpscope declares it by default, per era that has it. */
  default: Partial<Record<Era, boolean>>;
  /** The settings' choice; null: the default. */
  chosen: boolean | null;
}

/** `GET /api/servers/:name/client-capabilities`. */
export interface CapabilitiesView {
  settings: CapabilitySettings;
  standard: StandardCapability[];
  advertised: Record<Era, JsonObject>;
  /** What the connection in place declared (null when not connected). */
  current: JsonObject | null;
  serverExperimental: JsonObject | null;
  persisted: boolean;
  /** The server's era setting, which a reconnect keeps. */
  protocolEra: EraPreference;
}

/** A send of this session, for the panel's own history (newest first). */
export interface SentEntry {
  at: number;
  label: string;
  outcome: SendOutcome;
  durationMs: number;
  /** What to put back in the editor. */
  form: EditorState;
}

/** The editor: method, params, kind, or the whole message as typed. */
export interface EditorState {
  kind: SendKind;
  method: string;
  params: JsonObject | undefined;
  raw: boolean;
  rawText: string;
}

export const EMPTY_EDITOR: EditorState = {
  kind: 'request',
  method: 'experimental/myMethod',
  params: { key: 'value' },
  raw: false,
  rawText: '',
};

/** The whole message the editor's fields stand for, as the raw editor starts it (the engine
 *  would choose the id; here the user does). */
export function rawTemplate(e: Pick<EditorState, 'kind' | 'method' | 'params'>): string {
  const msg: JsonObject = { jsonrpc: '2.0' };
  if (e.kind === 'request') msg.id = 1;
  msg.method = e.method;
  if (e.params !== undefined) msg.params = e.params;
  return JSON.stringify(msg, null, 2);
}

/** The body to send for the editor's state. */
export function sendBody(e: EditorState, timeoutMs: number | null | undefined, requestId: string): SendBody {
  const t = timeoutMs === undefined ? {} : { timeoutMs };
  if (e.raw) return { raw: e.rawText, requestId, ...t };
  return { kind: e.kind, method: e.method.trim(), params: e.params, requestId, ...t };
}

/** What the panel's history calls a send: its method, or what a raw body is. */
export function sentLabel(e: EditorState): string {
  if (!e.raw) return e.method.trim() || '(no method)';
  try {
    const v = JSON.parse(e.rawText) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as JsonObject).method === 'string') return `${(v as JsonObject).method} (raw)`;
    return Array.isArray(v) ? 'batch (raw)' : 'message (raw)';
  } catch {
    return 'not JSON (raw)';
  }
}

/** The badge colour and word of an outcome: success green, a server error red, silence amber. */
export function outcomeBadge(o: SendOutcome): { color: string; word: string } {
  switch (o) {
    case 'result':
      return { color: 'green', word: 'success' };
    case 'sent':
      return { color: 'blue', word: 'sent' };
    case 'error':
      return { color: 'red', word: 'error' };
    case 'reply':
      return { color: 'orange', word: 'reply' };
    case 'noReply':
      return { color: 'yellow', word: 'no reply' };
    case 'timeout':
      return { color: 'yellow', word: 'timeout' };
    case 'cancelled':
      return { color: 'gray', word: 'cancelled' };
    default:
      return { color: 'red', word: 'failed' };
  }
}

/** "JSON-RPC error -32601 Method not found: …", or null when the answer was not an error. */
export function rpcErrorLine(r: SendResult): string | null {
  if (!r.rpcError) return null;
  const name = r.rpcError.name ? ` ${r.rpcError.name}` : '';
  return `JSON-RPC error ${r.rpcError.code}${name}: ${r.rpcError.message}`;
}

/** The history, newest first, bounded (a session of sends must not grow the page forever). */
export const SENT_LIMIT = 200;
export function addSent(list: SentEntry[], entry: SentEntry): SentEntry[] {
  return [entry, ...list].slice(0, SENT_LIMIT);
}

/** Whether the switch at `path` is on for `era`: the choice, else mcpscope's default. */
export function switchOn(c: StandardCapability, era: Era): boolean {
  if (c.chosen !== null) return c.chosen;
  return c.default[era] ?? false;
}

/** New settings with `path` switched to `on` (the default again when it equals it). */
export function withSwitch(settings: CapabilitySettings, c: StandardCapability, era: Era, on: boolean): CapabilitySettings {
  const standard = { ...(settings.standard ?? {}) };
  if ((c.default[era] ?? false) === on) delete standard[c.path];
  else standard[c.path] = on;
  return { ...settings, standard };
}

/** New settings with an entry of `experimental` or `extensions` added (or replaced) or removed. */
export function withEntry(
  settings: CapabilitySettings,
  section: 'experimental' | 'extensions',
  name: string,
  value: JsonObject | null,
): CapabilitySettings {
  const map = { ...(settings[section] ?? {}) };
  if (value === null) delete map[name];
  else map[name] = value;
  return { ...settings, [section]: map };
}

/** The names to offer as experimental switches: the server's own, then those we advertise. */
export function experimentalNames(view: CapabilitiesView | null, serverExperimental: JsonObject | null | undefined): string[] {
  const names = new Set<string>(Object.keys(serverExperimental ?? view?.serverExperimental ?? {}));
  for (const n of Object.keys(view?.settings.experimental ?? {})) names.add(n);
  return [...names];
}

/** What the panel asks the backend (the real API unless a test gives another). */
export interface ExperimentalClient {
  send: (server: string, body: SendBody) => Promise<SendResult>;
  cancel: (requestId: string) => Promise<unknown>;
  capabilities: (server: string) => Promise<CapabilitiesView>;
  setCapabilities: (server: string, settings: CapabilitySettings) => Promise<CapabilitiesView>;
  /** Connect again with the server's own era setting, so the new capabilities are declared. */
  reconnect: (server: string, protocol: EraPreference) => Promise<unknown>;
}
