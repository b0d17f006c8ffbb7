// The Sampling Request dialog's model (003's "Sampling Request"): what a `sampling/createMessage`
// (legacy) or an `input_required` round's sampling entry (2026-07-28) asks, read into parts the
// card draws as text, and the CreateMessageResult the user's answer becomes. Pure.
//
// Media is only ever drawn from a `data:` URL this module builds from the block's base64 `data`
// and a checked `mimeType`: a server's own URL (`javascript:`, `http:` …) is never a source, so
// nothing is fetched or run because a server asked.

import type { Json, JsonObject } from './types';

function obj(v: Json | undefined): JsonObject {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

function str(v: Json | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: Json | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** `s` cut to `max` characters without reading all of a 5 MB string into an array. */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const chars = Array.from(s.slice(0, max * 2));
  return chars.length > max ? `${chars.slice(0, max).join('')}… (${s.length.toLocaleString('en')} characters in all)` : s;
}

/** One content block of a message, as the card draws it. */
export type SamplingBlock =
  | { kind: 'text'; text: string }
  /** `src` is a `data:` URL, or null when the block cannot be one (then `json` is shown). */
  | { kind: 'image' | 'audio'; src: string | null; mimeType: string; json: string }
  | { kind: 'json'; type: string; json: string };

export interface SamplingMessageView {
  role: string;
  blocks: SamplingBlock[];
}

/** What a sampling request asks, every part optional but the messages. */
export interface SamplingView {
  messages: SamplingMessageView[];
  /** `modelPreferences` as JSON text (hints, cost/speed/intelligence priorities). */
  modelPreferences: string | null;
  systemPrompt: string | null;
  maxTokens: number | null;
  stopSequences: string[];
  temperature: number | null;
  includeContext: string | null;
  /** `tools` (2025-11-25 sampling with tools) and `toolChoice`, as JSON text. */
  tools: string | null;
  toolChoice: string | null;
}

/** Characters shown of any one string (a 5 MB prompt must not freeze the page). */
export const MAX_TEXT = 20_000;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MIME = /^[a-z]+\/[a-z0-9.+-]+$/i;

function json(v: Json): string {
  return cut(JSON.stringify(v, null, 2) ?? String(v), MAX_TEXT);
}

/** A `data:` URL for `data` of `mimeType` when it is base64 of a `prefix` type, else null. */
export function mediaSrc(prefix: 'image/' | 'audio/', mimeType: Json | undefined, data: Json | undefined): string | null {
  const m = str(mimeType);
  const d = str(data);
  if (!m || !d || !MIME.test(m) || !m.toLowerCase().startsWith(prefix)) return null;
  const clean = d.replace(/\s+/g, '');
  if (!clean || !BASE64.test(clean)) return null;
  return `data:${m.toLowerCase()};base64,${clean}`;
}

/** One block: text, image, audio, or anything else (tool_use, tool_result, unknown) as JSON. */
export function blockOf(v: Json): SamplingBlock {
  const b = obj(v);
  const type = str(b.type) ?? '';
  if (type === 'text' && typeof b.text === 'string') return { kind: 'text', text: cut(b.text, MAX_TEXT) };
  if (type === 'image' || type === 'audio') {
    const src = mediaSrc(type === 'image' ? 'image/' : 'audio/', b.mimeType, b.data);
    const shown = src ? { ...b, data: `(${(str(b.data) ?? '').length.toLocaleString('en')} base64 characters)` } : b;
    return { kind: type, src, mimeType: cut(str(b.mimeType) ?? '', 200), json: json(shown) };
  }
  return { kind: 'json', type: cut(type || '(no type)', 100), json: json(v) };
}

/** A message's content: one block, or (with tools) an array of them. */
function messageOf(v: Json): SamplingMessageView {
  const m = obj(v);
  const content = m.content;
  const blocks = Array.isArray(content) ? content.map(blockOf) : content === undefined ? [] : [blockOf(content)];
  return { role: cut(str(m.role) ?? '(no role)', 100), blocks };
}

/** Messages drawn at most (a server may send thousands). */
export const MAX_MESSAGES = 100;

/** The request's params read for the card. */
export function samplingView(payload: Json): SamplingView {
  const p = obj(payload);
  const messages = Array.isArray(p.messages) ? p.messages.slice(0, MAX_MESSAGES).map(messageOf) : [];
  const stops = Array.isArray(p.stopSequences) ? p.stopSequences.slice(0, 100).map((s) => cut(typeof s === 'string' ? s : JSON.stringify(s), 500)) : [];
  return {
    messages,
    modelPreferences: p.modelPreferences === undefined || p.modelPreferences === null ? null : json(p.modelPreferences),
    systemPrompt: str(p.systemPrompt) === undefined ? null : cut(str(p.systemPrompt) ?? '', MAX_TEXT),
    maxTokens: num(p.maxTokens) ?? null,
    stopSequences: stops,
    temperature: num(p.temperature) ?? null,
    includeContext: str(p.includeContext) ? cut(str(p.includeContext) ?? '', 100) : null,
    tools: Array.isArray(p.tools) ? json(p.tools) : null,
    toolChoice: p.toolChoice === undefined || p.toolChoice === null ? null : json(p.toolChoice),
  };
}

/** How many messages the request holds in all (the view draws at most MAX_MESSAGES). */
export function messageCount(payload: Json): number {
  const m = obj(payload).messages;
  return Array.isArray(m) ? m.length : 0;
}

/** The response editor's defaults. */
export const DEFAULT_MODEL = 'mcpscope-manual';
export const DEFAULT_STOP_REASON = 'endTurn';
export const STOP_REASONS = ['endTurn', 'stopSequence', 'maxTokens', 'toolUse'];

export interface SamplingDraft {
  text: string;
  model: string;
  stopReason: string;
}

/**
 * The CreateMessageResult for the user's answer. Both revisions (2025-11-25 and 2026-07-28) give
 * it the same shape: `role`, `content`, `model` required, `stopReason` optional; the backend
 * passes it through as the legacy result or the modern round's input response. An empty model
 * falls back to the default (it is required); an empty stop reason is left out.
 */
export function samplingResult(d: SamplingDraft): JsonObject {
  const out: JsonObject = {
    role: 'assistant',
    content: { type: 'text', text: d.text },
    model: d.model.trim() || DEFAULT_MODEL,
  };
  const stop = d.stopReason.trim();
  if (stop) out.stopReason = stop;
  return out;
}
