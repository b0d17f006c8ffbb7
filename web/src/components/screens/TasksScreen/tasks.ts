// What the task routes answer (docs/web-api.md, "Tasks"; the types are generated from
// mcpscope_inspect::tasks::{TaskView, TaskDetail, TasksPage, …} into src/generated/events.ts),
// the list kept from a snapshot and the deltas a `tasks` event leads to, and the few words the
// Tasks screen puts on them. Following a task is the backend's; nothing here talks to a server.
import type { Interaction, ServerRequestEvent, TaskDetail, TaskPolling, TaskSupport, TasksPage, TaskView } from '../../../generated/events';
import type { Json, JsonObject } from '../../../utils/types';

export type { TaskDetail, TaskPolling, TaskSupport, TasksPage, TaskView };

/** The page after reading `next`: a full snapshot replaces it; a delta (`next.delta`) replaces
 *  the rows it holds and appends the new ones (the backend never forgets a task, and keeps them
 *  in the order it first heard of them, so new ones come last). */
export function applyPage(prev: TasksPage | null, next: TasksPage): TasksPage {
  if (next.unchanged && prev) return prev;
  if (!next.delta || !prev) return next;
  const changed = new Map(next.tasks.map((t) => [t.taskId, t]));
  const tasks = prev.tasks.map((t) => changed.get(t.taskId) ?? t);
  const known = new Set(prev.tasks.map((t) => t.taskId));
  for (const t of next.tasks) if (!known.has(t.taskId)) tasks.push(t);
  return { ...next, delta: false, tasks };
}

/** What running a tool as a task answers (a json! value in Rust: written here). */
export interface TaskRunAnswer {
  historyId: number;
  result: Json;
  task: TaskDetail | null;
}

/** A TTL as the server sent it: absent, null (unlimited) or milliseconds. */
export function ttlText(ttl: Json | undefined): string {
  if (ttl === undefined) return 'not given';
  if (ttl === null) return 'unlimited';
  if (typeof ttl === 'number') return durationText(ttl);
  return `${JSON.stringify(ttl)} (not a number)`;
}

/** Milliseconds in the largest sensible unit (10^12 ms stays readable). */
export function durationText(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 120) return `${+s.toFixed(1)} s`;
  const m = s / 60;
  if (m < 120) return `${+m.toFixed(1)} min`;
  const h = m / 60;
  if (h < 48) return `${+h.toFixed(1)} h`;
  return `${+(h / 24).toFixed(1)} days`;
}

/** A span as a clock reads it: `45s`, `1m 30s`, `2h 5m`, `3d 4h` (negative: 0s). */
export function spanText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** When the task started and how long it has run (`now`, ms since the epoch) or ran, from the
 *  server's `createdAt` and, once ended, `lastUpdatedAt`; a time the server did not send (or
 *  sent unreadable) is a dash, never a guess. */
export function timingText(t: TaskView, now: number): string {
  const start = t.createdAt ? Date.parse(t.createdAt) : NaN;
  const clock = (ms: number) => new Date(ms).toLocaleTimeString();
  if (t.terminal) {
    const end = t.lastUpdatedAt ? Date.parse(t.lastUpdatedAt) : NaN;
    const ended = Number.isNaN(end) ? '—' : clock(end);
    const took = Number.isNaN(start) || Number.isNaN(end) ? '—' : spanText(end - start);
    return `ended ${ended} · duration ${took}`;
  }
  if (Number.isNaN(start)) return 'started — · elapsed —';
  return `started ${clock(start)} · elapsed ${spanText(now - start)}`;
}

/** The task's progress bar: its own last progress (a legacy task's, after the call returned),
 *  else the creating call's while it runs; a completed task is full. Percent, and the numbers
 *  and step as the server sent them. */
export function progressOf(t: TaskView, call?: { progress: number; total: number | null; message: string | null }): { pct: number; text: string; message: string | null } | null {
  const p = t.progress ?? call;
  if (t.status === 'completed') return { pct: 100, text: '100%', message: p?.message ?? null };
  if (!p) return null;
  if (!p.total || p.total <= 0) return { pct: 0, text: `${p.progress} done (no total)`, message: p.message };
  const pct = Math.max(0, Math.min(100, Math.round((p.progress / p.total) * 100)));
  return { pct, text: `${pct}% (${p.progress} of ${p.total})`, message: p.message };
}

/** How the backend follows the task, in a few words. */
export function pollingText(p: TaskPolling, asked: Json | undefined): string {
  const server = asked === undefined ? 'the server names no interval' : `the server asks ${typeof asked === 'number' ? durationText(asked) : JSON.stringify(asked)}`;
  switch (p.state) {
    case 'polling':
      return `polling every ${durationText(p.everyMs ?? 0)} (${p.reason ?? server})`;
    case 'done':
      return `ended; followed with ${p.polls} poll${p.polls === 1 ? '' : 's'}`;
    case 'stopped':
      return `stopped polling: ${p.reason ?? 'no reason given'}`;
    default:
      return `not followed (${server}); Get refreshes it`;
  }
}

/** The status badge's colour; an invented status is orange, never a known one's colour. */
export function statusColor(t: TaskView): string {
  if (!t.knownStatus) return 'orange';
  switch (t.status) {
    case 'completed':
      return 'green';
    case 'failed':
      return 'red';
    case 'cancelled':
      return 'gray';
    case 'input_required':
      return 'yellow';
    default:
      return 'blue';
  }
}

/** Active first (in the order they came), then ended ones, newest first. */
export function splitTasks(tasks: TaskView[]): { active: TaskView[]; ended: TaskView[] } {
  const active: TaskView[] = [];
  const ended: TaskView[] = [];
  for (const t of tasks) (t.terminal ? ended : active).push(t);
  ended.reverse();
  return { active, ended };
}

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** Whether request params carry `related-task` naming task `id`. */
function relatedTo(params: Json | null | undefined, id: string): boolean {
  const meta = ((params ?? {}) as JsonObject)._meta as JsonObject | undefined;
  const rel = meta?.[RELATED_TASK] as JsonObject | undefined;
  return !!rel && typeof rel === 'object' && rel.taskId === id;
}

/** The questions waiting for an answer that belong to task `id` of `server` (`related-task` in
 *  their `_meta`; the engine adds it to a modern task's input requests). */
export function interactionsOf(all: Interaction[], server: string, id: string): Interaction[] {
  return all.filter((i) => i.server === server && relatedTo(i.payload, id));
}

/** The questions of task `id` already answered (the `serverRequest` events this page saw, newest
 *  last), each with what the server got. */
export function answeredOf(all: ServerRequestEvent[], server: string, id: string): ServerRequestEvent[] {
  return all.filter((r) => r.server === server && relatedTo(r.params, id));
}

/** What the server got, in a few words: the elicitation action, or the error. */
export function answerText(answer: Json): string {
  const a = (answer ?? {}) as JsonObject;
  const err = a.error as JsonObject | undefined;
  if (err && typeof err === 'object') return `error ${String(err.code)}: ${String(err.message ?? '')}`;
  const r = a.result as JsonObject | undefined;
  if (r && typeof r === 'object' && typeof r.action === 'string') return r.action;
  return 'answered';
}

/** A result the ToolResult view can draw (a CallToolResult-shaped object). */
export function isToolResult(v: Json | null): v is JsonObject {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Array.isArray((v as JsonObject).content);
}
