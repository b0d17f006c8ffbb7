// History helpers: the target a request was about, the screen to replay it on, filters.

import type { HistoryEntry, Json, JsonObject, TabId } from './types';

/** What a request was about: the tool name, resource URI or prompt name. */
export function historyTarget(e: Pick<HistoryEntry, 'method' | 'params'>): string {
  const p = (e.params ?? {}) as JsonObject;
  switch (e.method) {
    case 'tools/call':
      return String(p.name ?? '');
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return String(p.uri ?? '');
    case 'prompts/get':
      return String(p.name ?? '');
    case 'completion/complete': {
      const ref = (p.ref ?? {}) as JsonObject;
      return String(ref.name ?? ref.uri ?? '');
    }
    case 'logging/setLevel':
      return String(p.level ?? '');
    default:
      return '';
  }
}

/** The screen a replay opens, or null when a request is not replayable from a screen. */
export function replayTab(method: string): TabId | null {
  if (method === 'tools/call') return 'tools';
  if (method === 'resources/read') return 'resources';
  if (method === 'prompts/get') return 'prompts';
  return null;
}

/** The arguments of a replayed request, for pre-filling the screen. */
export function replayArgs(e: Pick<HistoryEntry, 'method' | 'params'>): { name?: string; uri?: string; args?: Json; meta?: Json } {
  const p = (e.params ?? {}) as JsonObject;
  if (e.method === 'tools/call') return { name: String(p.name ?? ''), args: p.arguments ?? {}, meta: p._meta };
  if (e.method === 'prompts/get') return { name: String(p.name ?? ''), args: p.arguments ?? {} };
  if (e.method === 'resources/read') return { uri: String(p.uri ?? '') };
  return {};
}

/** The method type filter of 003_* (tools, resources, prompts, sampling, elicitation, other). */
export function methodType(method: string): string {
  const head = method.split('/')[0];
  if (['tools', 'resources', 'prompts', 'sampling', 'elicitation', 'completion', 'logging', 'tasks'].includes(head)) return head;
  return 'other';
}

/** The status badge colour. */
export function statusColor(status: string): 'green' | 'red' | 'gray' | 'yellow' {
  return status === 'ok' ? 'green' : status === 'error' ? 'red' : status === 'pending' ? 'yellow' : 'gray';
}

/** "+45ms" offsets for children. */
export function offsetLabel(ms: number): string {
  return `+${Math.round(ms)}ms`;
}

/** Merge an updated entry into a list (newest first), replacing the one with the same id. */
export function upsertEntry(list: HistoryEntry[], e: HistoryEntry, max = 500): HistoryEntry[] {
  const i = list.findIndex((x) => x.id === e.id);
  if (i >= 0) {
    const copy = [...list];
    copy[i] = { ...copy[i], ...e };
    return copy;
  }
  const out = [e, ...list];
  out.sort((a, b) => b.id - a.id);
  return out.length > max ? out.slice(0, max) : out;
}

/** A row of the History list: an entry, and how many older completions it stands for. */
export interface HistoryLine {
  entry: HistoryEntry;
  /** Older `completion/complete` entries folded into this one (0: none). */
  folded: number;
}

/** Completion is asked key by key as the user types: a run of `completion/complete` entries of
 *  one server, reference and argument, with nothing between them, is one line (the newest,
 *  which holds the final value) rather than a line per keystroke. `list` is newest first. */
export function foldCompletions(list: HistoryEntry[]): HistoryLine[] {
  const out: HistoryLine[] = [];
  let lastKey: string | null = null;
  for (const entry of list) {
    const key = completionKey(entry);
    const last = out[out.length - 1];
    if (key !== null && key === lastKey && last) last.folded += 1;
    else out.push({ entry, folded: 0 });
    lastKey = key;
  }
  return out;
}

/** What a completion request completes (server, ref, argument), null for other methods. */
function completionKey(e: HistoryEntry): string | null {
  if (e.method !== 'completion/complete') return null;
  const p = (e.params ?? {}) as JsonObject;
  const arg = (p.argument ?? {}) as JsonObject;
  return JSON.stringify([e.server, p.ref ?? null, arg.name ?? null]);
}

/** One line for a child of a request (what it caused): label and detail. */
export function childSummary(c: { kind: string; data?: Json }): { label: string; detail: string } {
  const d = (c.data ?? {}) as JsonObject;
  const text = (v: Json | undefined) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));
  switch (c.kind) {
    case 'progress':
      return {
        label: 'progress',
        detail: `${text(d.progress)}${d.total !== undefined && d.total !== null ? `/${text(d.total)}` : ''}${d.message ? ` ${text(d.message)}` : ''}`,
      };
    case 'log':
      return { label: `log [${text(d.level)}]`, detail: `${d.logger ? `${text(d.logger)}: ` : ''}${text(d.data)}` };
    case 'serverRequest': {
      const answer = (d.answer ?? {}) as JsonObject;
      const result = (answer.result ?? {}) as JsonObject;
      const verdict = answer.error !== undefined ? `declined: ${text(((answer.error ?? {}) as JsonObject).message ?? answer.error)}` : result.action ? `answered: ${text(result.action)}` : `answered ${text(answer.result)}`;
      return { label: text(d.method) || 'server request', detail: verdict };
    }
    case 'notification':
      return { label: text(d.method) || 'notification', detail: text(d.params) };
    default:
      return { label: c.kind, detail: text(c.data) };
  }
}
