// Requests that take several questions: the `input_required` rounds of one call (which pending
// questions form one walk-through dialog, "round N of max"), the engine's round limit when a call
// hits it, the `-32042` URL-elicitation-required error of a 2025-11-25 `tools/call`, and the
// History tree of a request's questions grouped by round. Pure.

import type { Interaction } from '../generated/events';
import type { ApiErrorBody, Json, JsonObject } from './types';

/** One thing the pending queue draws: a question alone, or every key of one round together. */
export type PendingItem = { kind: 'one'; interaction: Interaction } | { kind: 'round'; items: Interaction[]; keys: number };

function obj(v: Json | undefined): JsonObject {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

/** The round a question belongs to, as a key: same server, same request, same round. Null for a
 *  legacy server request or a round of one key (drawn as a card of its own). */
function roundOf(i: Interaction): string | null {
  if (i.round === null || (i.roundKeys ?? 1) <= 1) return null;
  return JSON.stringify([i.server, i.historyId, i.round, i.origin.replace(/, key .*$/, '')]);
}

/** The queue as drawn: the keys of one round (asked at once by the engine) become one item, in
 *  the place of the first; everything else stays a card of its own, in order. */
export function groupRounds(list: Interaction[]): PendingItem[] {
  const out: PendingItem[] = [];
  const at = new Map<string, number>();
  for (const i of list) {
    const r = roundOf(i);
    const k = r === null ? undefined : at.get(r);
    if (r === null) out.push({ kind: 'one', interaction: i });
    else if (k === undefined) {
      at.set(r, out.length);
      out.push({ kind: 'round', items: [i], keys: i.roundKeys ?? 1 });
    } else {
      const g = out[k];
      if (g.kind === 'round') g.items.push(i);
    }
  }
  return out;
}

/** "Round 2 of at most 10" for the questions of a running call (the engine's limit), or null
 *  when none of them is an `input_required` round. The latest round counts. */
export function roundLabel(list: Interaction[]): string | null {
  const rounds = list.filter((i) => i.round !== null);
  if (rounds.length === 0) return null;
  const round = Math.max(...rounds.map((i) => i.round ?? 0));
  const max = rounds.find((i) => i.maxRounds !== null)?.maxRounds;
  return max ? `Round ${round} of at most ${max}` : `Round ${round}`;
}

/** The key of an `input_required` question ("email"), from the interaction or its origin text. */
export function keyOf(i: { key?: string | null; origin?: string }): string | null {
  if (i.key) return i.key;
  const m = /, key "(.*)"$/.exec(i.origin ?? '');
  return m ? m[1] : null;
}

/** A call stopped by the engine's round limit, said plainly; null for any other error. */
export function roundsExceeded(e: ApiErrorBody): string | null {
  if (e.code !== 'input_rounds_exceeded') return null;
  const n = /asked for input (\d+) times/.exec(e.message)?.[1];
  const rounds = n ? `${n} input_required rounds` : 'its input_required rounds';
  return `Stopped after ${rounds}: the server kept asking for input without completing, and mcpscope answers at most ${n ?? 'that many'} rounds per request. The server never returned a result.`;
}

/** One URL a `-32042` error asks the user to open. */
export interface UrlRequired {
  url: string;
  elicitationId: string | null;
  message: string;
}

/** The `-32042` URLElicitationRequiredError of a 2025-11-25 call: the URLs of its
 *  `data.elicitations` (bounded; anything that is not a URL elicitation is skipped); null for
 *  any other error. */
export function urlElicitationsRequired(e: ApiErrorBody, max = 10): UrlRequired[] | null {
  if (e.rpcCode !== -32042) return null;
  const list = obj(e.data).elicitations;
  if (!Array.isArray(list)) return [];
  const out: UrlRequired[] = [];
  for (const v of list.slice(0, max)) {
    const x = obj(v);
    if (typeof x.url !== 'string') continue;
    out.push({
      url: x.url,
      elicitationId: typeof x.elicitationId === 'string' && x.elicitationId ? x.elicitationId : null,
      message: typeof x.message === 'string' ? x.message : '',
    });
  }
  return out;
}

/** One question of a request in its History tree. */
export interface HistoryQuestion {
  method: string;
  key: string | null;
  outcome: string;
  /** What the server got back, in a few words (the content, or the refusal). */
  answer: string;
  /** When it was asked, from the request's start. */
  offsetMs: number;
  /** How long the answer took (the user's time), when the row says. */
  answeredAfterMs: number | null;
}

/** The questions of a request grouped by round (round null: legacy server requests). */
export interface HistoryRound {
  round: number | null;
  questions: HistoryQuestion[];
}

function brief(v: Json | undefined, max = 120): string {
  const t = typeof v === 'string' ? v : JSON.stringify(v) ?? '';
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** What the server got for one question: "accept {"name":"Ada"}", "decline", "refused: …". */
function answerText(d: JsonObject): string {
  const a = obj(d.answer);
  if (a.error !== undefined) return `refused: ${brief(obj(a.error).message ?? a.error)}`;
  const r = obj(a.result);
  if (typeof r.action === 'string') return r.content !== undefined ? `${r.action} ${brief(r.content)}` : r.action;
  return brief(a.result);
}

/** The `serverRequest` children of a history entry as rounds, in the order they closed. */
export function historyRounds(children: { kind: string; offsetMs: number; data?: Json }[]): HistoryRound[] {
  const out: HistoryRound[] = [];
  for (const c of children) {
    if (c.kind !== 'serverRequest') continue;
    const d = obj(c.data);
    const round = typeof d.round === 'number' ? d.round : null;
    const q: HistoryQuestion = {
      method: typeof d.method === 'string' ? d.method : 'server request',
      key: keyOf({ origin: typeof d.origin === 'string' ? d.origin : '' }),
      outcome: typeof d.outcome === 'string' ? d.outcome : '',
      answer: answerText(d),
      offsetMs: c.offsetMs,
      answeredAfterMs: typeof d.answeredAfterMs === 'number' ? d.answeredAfterMs : null,
    };
    const last = out[out.length - 1];
    if (last && last.round === round) last.questions.push(q);
    else out.push({ round, questions: [q] });
  }
  return out;
}
