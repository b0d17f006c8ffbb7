// Testing Profiles in the page (docs/web-api.md "Testing Profiles"): the editor's draft of one
// profile and its checks before it is sent (the backend checks again and has the last word),
// a profile in words for lists and the sampling card, and the card's pre-fill read from what the
// backend says the active profile answers. No protocol logic: the answer itself is computed by
// the backend (`GET /api/interactions/:id/profile`). Pure.

import type { ActiveProfile, Profile, ProfileAnswer, Strategy } from '../generated/events';
import type { Json, JsonObject } from './types';

/** The bounds the backend enforces (crates/mcpscope-inspect/src/profiles). */
export const MAX_DELAY_MS = 300_000;
export const MAX_NAME_CHARS = 100;
export const MAX_TEXT_BYTES = 256 * 1024;
export const DEFAULT_PROFILE_MODEL = 'mcpscope-profile';

export type StrategyKind = Strategy['kind'];

/** Each strategy, with the words the editor shows. */
export const STRATEGY_KINDS: { value: StrategyKind; label: string }[] = [
  { value: 'fixed', label: 'Fixed text' },
  { value: 'echo', label: 'Echo the last user message' },
  { value: 'reject', label: 'Reject' },
  { value: 'delay', label: 'Delay, then answer' },
  { value: 'toolUse', label: 'Tool use (sampling with tools)' },
];

/** The editor's fields, all text as typed. */
export interface ProfileDraft {
  name: string;
  kind: StrategyKind;
  text: string;
  ms: string;
  tool: string;
  input: string;
  model: string;
  /** Blank: the strategy's default (`endTurn`, `toolUse` for a tool use). */
  stopReason: string;
}

export type DraftErrors = Partial<Record<keyof ProfileDraft, string>>;

export function emptyDraft(): ProfileDraft {
  return { name: '', kind: 'fixed', text: '', ms: '1000', tool: '', input: '{}', model: '', stopReason: '' };
}

/** The draft that edits `p`. */
export function draftOf(p: Profile): ProfileDraft {
  const d = { ...emptyDraft(), name: p.name, kind: p.strategy.kind, model: p.model, stopReason: p.stopReason ?? '' };
  const s = p.strategy;
  if (s.kind === 'fixed') d.text = s.text;
  if (s.kind === 'delay') {
    d.text = s.text;
    d.ms = String(s.ms);
  }
  if (s.kind === 'toolUse') {
    d.tool = s.tool;
    d.input = JSON.stringify(s.input, null, 2);
  }
  return d;
}

function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length;
}

function checkName(name: string): string | undefined {
  if (!name.trim()) return 'A profile needs a name.';
  if (name.trim() !== name) return 'No spaces at the start or end.';
  if ([...name].length > MAX_NAME_CHARS) return `At most ${MAX_NAME_CHARS} characters.`;
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'No control characters.';
  return undefined;
}

/** The strategy the draft says, or the errors under its fields. */
function strategyOf(d: ProfileDraft, errors: DraftErrors): Strategy | null {
  const text = () => {
    if (utf8Bytes(d.text) > MAX_TEXT_BYTES) errors.text = `At most ${MAX_TEXT_BYTES / 1024} KiB.`;
    return d.text;
  };
  switch (d.kind) {
    case 'fixed':
      return { kind: 'fixed', text: text() };
    case 'echo':
      return { kind: 'echo' };
    case 'reject':
      return { kind: 'reject' };
    case 'delay': {
      const ms = Number(d.ms.trim());
      if (!/^\d+$/.test(d.ms.trim()) || ms > MAX_DELAY_MS) errors.ms = `A whole number of milliseconds, 0 to ${MAX_DELAY_MS} (the interaction timeout).`;
      return { kind: 'delay', ms, text: text() };
    }
    case 'toolUse': {
      let input: Json = {};
      try {
        input = JSON.parse(d.input.trim() || '{}') as Json;
        if (!isObject(input)) errors.input = 'The input must be a JSON object (the tool’s arguments).';
      } catch (e) {
        errors.input = `Not JSON: ${e instanceof Error ? e.message : String(e)}`;
      }
      return { kind: 'toolUse', tool: d.tool.trim(), input };
    }
  }
}

/** The profile to send, or the errors to show under the fields (nothing is sent then). */
export function profileOf(d: ProfileDraft): { profile: Profile } | { errors: DraftErrors } {
  const errors: DraftErrors = {};
  const nameError = checkName(d.name);
  if (nameError) errors.name = nameError;
  const strategy = strategyOf(d, errors);
  if (Object.keys(errors).length > 0 || !strategy) return { errors };
  const profile: Profile = { name: d.name, strategy, model: d.model.trim() };
  if (d.stopReason.trim()) profile.stopReason = d.stopReason.trim();
  return { profile };
}

function quoted(s: string, max = 60): string {
  const chars = [...s.slice(0, max * 2)];
  return `«${chars.length > max ? `${chars.slice(0, max).join('')}…` : s}»`;
}

/** A profile's strategy in a few words. */
export function strategySummary(s: Strategy): string {
  switch (s.kind) {
    case 'fixed':
      return `fixed text ${quoted(s.text)}`;
    case 'echo':
      return 'echoes the last user message';
    case 'reject':
      return 'rejects the request';
    case 'delay':
      return `after ${s.ms >= 1000 ? `${s.ms / 1000} s` : `${s.ms} ms`}: ${quoted(s.text)}`;
    case 'toolUse':
      return `tool use ${s.tool ? quoted(s.tool, 40) : '(the request’s first tool)'} with ${quoted(JSON.stringify(s.input), 40)}`;
  }
}

/** What a server's switches do, in words. */
export function choiceSummary(a: ActiveProfile): string {
  if (!a.profile) return 'No Testing Profile: sampling requests wait for their card.';
  if (!a.autoRespond) return `«${a.profile}» is ready on the card (Auto-respond is off): each request waits for an answer by hand.`;
  if (a.withoutStopping) return `«${a.profile}» answers every sampling request by itself, without stopping.`;
  return `«${a.profile}» pre-fills each sampling request’s card: Send Response sends it.`;
}

/** What the card's Response editor starts with. */
export interface Prefill {
  text: string;
  model: string;
  stopReason: string;
}

/**
 * The card's pre-fill from the active profile's answer, when the server's switches ask for one
 * (Auto-respond on, without stopping off) and the answer is text; null otherwise (a rejection, a
 * tool use: the card's Auto-respond button sends those as they are).
 */
export function prefillOf(pa: ProfileAnswer | null): Prefill | null {
  if (!pa || !pa.active.autoRespond || pa.active.withoutStopping) return null;
  const a = isObject(pa.answer) ? pa.answer : {};
  if (a.action !== 'accept' || !isObject(a.content)) return null;
  const content = a.content.content;
  if (!isObject(content) || content.type !== 'text' || typeof content.text !== 'string') return null;
  return {
    text: content.text,
    model: typeof a.content.model === 'string' ? a.content.model : DEFAULT_PROFILE_MODEL,
    stopReason: typeof a.content.stopReason === 'string' ? a.content.stopReason : '',
  };
}

/** The Auto-respond button's words for the profile's answer. */
export function autoRespondLabel(pa: ProfileAnswer): string {
  const a = isObject(pa.answer) ? pa.answer : {};
  if (a.action !== 'accept') return pa.refused ? 'Auto-respond (declines: see why)' : 'Auto-respond (rejects)';
  return 'Auto-respond';
}
