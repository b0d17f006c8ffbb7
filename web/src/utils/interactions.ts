// The pending interactions (docs/web-api.md, "Pending interactions"): what a server asked that
// waits for this page, kept from `interactionOpened` / `interactionClosed` and `GET
// /api/interactions`; and what the dialogs say about one (title, header, summary, URL parts,
// the time left). Pure.

import type { Interaction, InteractionClosed } from '../generated/events';
import { openable } from './openable';
import type { HistoryEntry, Json, JsonObject } from './types';

/** How a view answers (`POST /api/interactions/:id`). */
export type InteractionAnswer = { action: 'accept'; content?: Json } | { action: 'decline' } | { action: 'cancel' };

/** Dialogs drawn at most at once; the rest are counted ("and 950 more"). A server that asks
 *  1,000 questions at once must not stall the page. */
export const MAX_SHOWN = 20;

/** `list` with `i` added, oldest first (an id seen twice is kept once). */
export function opened(list: Interaction[], i: Interaction): Interaction[] {
  if (list.some((x) => x.id === i.id)) return list;
  const out = [...list, i];
  out.sort((a, b) => a.id - b.id);
  return out;
}

/** `list` without interaction `id`. */
export function closed(list: Interaction[], id: number): Interaction[] {
  return list.some((x) => x.id === id) ? list.filter((x) => x.id !== id) : list;
}

/**
 * The list after `GET /api/interactions` answered `snapshot`. Events keep coming while it is in
 * flight: an interaction opened since the request went out may be missing from the snapshot,
 * one closed since may still be in it. Everything else the snapshot decides (events were lost:
 * an interaction in `list` that it does not hold has closed).
 */
export function fromSnapshot(snapshot: Interaction[], list: Interaction[], openedSince: Set<number>, closedSince: Set<number>): Interaction[] {
  let out = snapshot.filter((i) => !closedSince.has(i.id));
  for (const i of list) if (openedSince.has(i.id) && !closedSince.has(i.id)) out = opened(out, i);
  out.sort((a, b) => a.id - b.id);
  return out;
}

function obj(v: Json | undefined): JsonObject {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

function str(v: Json | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** `s` cut to `max` characters (a server's title may be 10,000 long). */
export function shortText(s: string, max = 200): string {
  // Only the start is split into characters: a 5 MB prompt must not be read whole.
  const chars = Array.from(s.length > max * 2 ? s.slice(0, max * 2 + 1) : s);
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : s;
}

/** "Elicitation Request" for a legacy `elicitation/create`, "Operation Needs Input" for an
 *  `input_required` round (000's wording). */
export function dialogTitle(i: Interaction): string {
  if (i.kind === 'elicitationForm' || i.kind === 'elicitationUrl') return i.round === null ? 'Elicitation Request' : 'Operation Needs Input';
  if (i.kind === 'sampling') return 'Sampling Request';
  if (i.kind === 'roots') return 'Roots Request';
  return 'Server Request';
}

/** "«server» is requesting information" / "«server» needs input to continue"; a legacy
 *  sampling request asks for a model's answer, not for information from the user. */
export function dialogHeader(i: Interaction): string {
  if (i.round !== null) return `${i.server} needs input to continue`;
  return i.kind === 'sampling' ? `${i.server} is asking for a model response` : `${i.server} is requesting information`;
}

/** The server's own name and version from its `serverInfo`, when it gave one. */
export function serverIdentity(serverInfo: JsonObject | null | undefined): string | null {
  const name = str(serverInfo?.name);
  if (!name) return null;
  const version = str(serverInfo?.version);
  return version ? `${name} ${version}` : name;
}

/** The message the server sent with its question. */
export function messageOf(i: Interaction): string {
  return str(obj(i.payload).message) ?? '';
}

/** One line for the queue: what is asked, briefly. */
export function summary(i: Interaction): string {
  const p = obj(i.payload);
  switch (i.kind) {
    case 'elicitationForm': {
      const props = Object.keys(obj(obj(p.requestedSchema).properties)).length;
      const m = messageOf(i);
      return `${m ? shortText(m, 120) : '(no message)'} · ${props} field${props === 1 ? '' : 's'}`;
    }
    case 'elicitationUrl':
      return `${shortText(messageOf(i) || '(no message)', 120)} · ${urlParts(str(p.url) ?? '').host || 'no valid URL'}`;
    case 'sampling': {
      const first = Array.isArray(p.messages) ? obj(p.messages[0]) : {};
      const text = str(obj(first.content).text);
      return text ? shortText(text, 120) : `${Array.isArray(p.messages) ? p.messages.length : 0} messages`;
    }
    case 'roots':
      return 'the client’s roots';
    default:
      return i.method;
  }
}

/** The interactions whose cause is the request the view sent as `requestId`. */
export function ofRequest(list: Interaction[], history: HistoryEntry[], requestId: string): Interaction[] {
  const ids = new Set(history.filter((h) => h.requestId === requestId).map((h) => h.id));
  return list.filter((i) => i.historyId !== null && ids.has(i.historyId));
}

/** The view's request id of the call that caused `i`, when this page knows it. */
export function requestOf(i: Interaction, history: HistoryEntry[]): string | null {
  if (i.historyId === null) return null;
  return history.find((h) => h.id === i.historyId)?.requestId ?? null;
}

export interface UrlParts {
  /** It parses as an absolute URL. */
  ok: boolean;
  /** `https://` (or whatever scheme), the host (shown emphasised), and the rest. */
  scheme: string;
  host: string;
  rest: string;
  /** Whether the page may open it (`openable`, the rule every view shares: https:, http: on this machine). */
  openable: boolean;
  /** Why not, when it may not. */
  refused: string | null;
}

/** A URL cut so its domain can be shown emphasised. */
export function urlParts(url: string): UrlParts {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, scheme: '', host: '', rest: url, openable: false, refused: 'it is not an absolute URL' };
  }
  const verdict = openable(url);
  const refused = verdict.ok ? null : verdict.reason;
  if (!u.host) return { ok: true, scheme: u.protocol, host: '', rest: url.slice(u.protocol.length), openable: false, refused: refused ?? 'it names no host' };
  const auth = u.username ? `${u.username}${u.password ? ':…' : ''}@` : '';
  const scheme = `${u.protocol}//${auth}`;
  const start = url.toLowerCase().indexOf(u.host.toLowerCase());
  const rest = start >= 0 ? url.slice(start + u.host.length) : `${u.pathname}${u.search}${u.hash}`;
  return { ok: true, scheme, host: u.host, rest, openable: verdict.ok, refused };
}

/** "4:59 left" until the interaction's deadline (it is then declined as timed out). */
export function timeLeft(i: Interaction, nowMs: number): string {
  const ms = Math.max(0, i.deadlineUs / 1000 - nowMs);
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The whole wait a view is given ("5 min"). */
export function timeoutText(i: Interaction): string {
  const s = Math.round((i.deadlineUs - i.openedAtUs) / 1e6);
  if (s % 60 === 0) return `${s / 60} min`;
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** A URL elicitation the user accepted, waiting for `notifications/elicitation/complete`. */
export interface UrlWait {
  interactionId: number;
  server: string;
  elicitationId: string;
  url: string;
  historyId: number | null;
  completed: boolean;
}

/** Waits kept (oldest dropped). */
const MAX_WAITS = 20;

/** After `c` closed `i`: an accepted legacy URL elicitation now waits for its completion (a
 *  2026-07-28 one has no elicitation id: the retried call finishes it). */
export function waitAfter(waits: UrlWait[], i: Interaction | undefined, c: InteractionClosed): UrlWait[] {
  if (!i || c.kind !== 'elicitationUrl' || c.outcome !== 'accepted') return waits;
  const p = obj(i.payload);
  const elicitationId = str(p.elicitationId);
  if (!elicitationId) return waits;
  const w: UrlWait = { interactionId: i.id, server: i.server, elicitationId, url: str(p.url) ?? '', historyId: i.historyId, completed: false };
  return [...waits, w].slice(-MAX_WAITS);
}

/** `notifications/elicitation/complete` for `elicitationId` from `server` arrived. */
export function completeWait(waits: UrlWait[], server: string, params: Json | null): UrlWait[] {
  const id = str(obj(params ?? undefined).elicitationId);
  if (!id) return waits;
  return waits.map((w) => (w.server === server && w.elicitationId === id ? { ...w, completed: true } : w));
}
