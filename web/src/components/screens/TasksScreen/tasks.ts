// What the task routes answer (docs/web-api.md, "Tasks"; the Rust types are
// mcpscope_inspect::tasks::{TaskView, TaskDetail, TasksPage}) and the few words the Tasks
// screen puts on them. Following a task is the backend's; nothing here talks to a server.
import type { Interaction } from '../../../generated/events';
import type { Json, JsonObject } from '../../../utils/types';

export interface TaskPolling {
  state: 'polling' | 'done' | 'stopped' | 'idle';
  everyMs: number | null;
  reason: string | null;
  polls: number;
}

export interface TaskView {
  taskId: string;
  status: string;
  knownStatus: boolean;
  terminal: boolean;
  statusMessage: string | null;
  createdAt: string | null;
  lastUpdatedAt: string | null;
  ttlMs?: Json;
  pollIntervalMs?: Json;
  polling: TaskPolling;
  source: 'created' | 'listed' | 'fetched';
  tool: string | null;
  historyId: number | null;
  requestId: string | null;
  hasResult: boolean;
  hasError: boolean;
  resultBytes: number | null;
  inputRequests: string[];
  updatedUs: number;
  stale: boolean;
  problems: string[];
}

export interface TaskDetail {
  task: TaskView;
  raw: Json;
  result: Json | null;
  resultPreview: string | null;
  error: Json | null;
}

export interface TaskSupport {
  era: 'legacy' | 'modern' | null;
  tasks: boolean;
  list: boolean;
  cancel: boolean;
  toolCall: boolean;
  ttl: boolean;
}

export interface TasksPage {
  server: string;
  support: TaskSupport;
  version: number;
  unchanged: boolean;
  tasks: TaskView[];
  omitted: number;
  minPollMs: number;
  maxPollMs: number;
}

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

/** The questions waiting for an answer that belong to task `id` of `server` (`related-task` in
 *  their `_meta`; the engine adds it to a modern task's input requests). */
export function interactionsOf(all: Interaction[], server: string, id: string): Interaction[] {
  return all.filter((i) => {
    if (i.server !== server) return false;
    const meta = ((i.payload ?? {}) as JsonObject)._meta as JsonObject | undefined;
    const rel = meta?.[RELATED_TASK] as JsonObject | undefined;
    return rel?.taskId === id;
  });
}

/** A result the ToolResult view can draw (a CallToolResult-shaped object). */
export function isToolResult(v: Json | null): v is JsonObject {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Array.isArray((v as JsonObject).content);
}
