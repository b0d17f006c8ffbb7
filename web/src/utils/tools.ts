// Tool list helpers: annotation badges, search, excluded tools.

import type { Json, JsonObject } from './types';

export interface ToolDef {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  _meta?: JsonObject;
  icons?: Json;
  /** `execution.taskSupport` (2025-11-25 tasks). */
  execution?: JsonObject;
}

export interface Badge {
  label: string;
  color: 'blue' | 'green' | 'red' | 'orange' | 'gray' | 'violet';
  hint?: string;
}

/** The badges of a tool (003_*: audience, read-only, destructive, long-running, hints). */
export function toolBadges(tool: ToolDef): Badge[] {
  const a = (tool.annotations ?? {}) as Record<string, Json>;
  const out: Badge[] = [];
  const audience = a.audience;
  if (Array.isArray(audience)) for (const who of audience) out.push({ label: String(who), color: 'violet' });
  if (a.readOnlyHint === true) out.push({ label: 'read-only', color: 'green' });
  if (a.destructiveHint === true) out.push({ label: 'destructive', color: 'red' });
  if (a.destructiveHint === false && a.readOnlyHint !== true) out.push({ label: 'non-destructive', color: 'gray' });
  if (a.idempotentHint === true) out.push({ label: 'idempotent', color: 'gray' });
  if (a.openWorldHint === true) out.push({ label: 'open-world', color: 'orange' });
  if (a.openWorldHint === false) out.push({ label: 'closed-world', color: 'gray' });
  const meta = (tool._meta ?? {}) as Record<string, Json>;
  if (a.longRunningHint === true || meta.longRunning === true || /long-running|takes about|durationMs/i.test(tool.description ?? '')) {
    out.push({ label: 'long-run', color: 'blue' });
  }
  // 2025-11-25 tasks: a tool that runs only as a task is flagged in the list, not only in its form.
  const support = (tool.execution ?? {}).taskSupport;
  if (support === 'required') out.push({ label: 'task only', color: 'violet', hint: 'execution.taskSupport: required' });
  if (support === 'optional') out.push({ label: 'task', color: 'gray', hint: 'execution.taskSupport: optional' });
  return out;
}

/** Annotation entries to list in the detail panel. */
export function annotationRows(tool: ToolDef): [string, string][] {
  const a = tool.annotations ?? {};
  return Object.entries(a).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
}

/** Case-insensitive search over name, title and description. */
export function filterTools<T extends ToolDef>(tools: T[], query: string): T[] {
  const q = query.trim().toLowerCase();
  if (!q) return tools;
  return tools.filter(
    (t) =>
      t.name.toLowerCase().includes(q) ||
      (t.title ?? '').toLowerCase().includes(q) ||
      (t.description ?? '').toLowerCase().includes(q),
  );
}

/** Excluded tools as a map, whichever shape the backend sent ([[name, reason]] or [{name, reason}]). */
export function excludedMap(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(raw)) {
    for (const e of raw) {
      if (Array.isArray(e) && e.length >= 2) out[String(e[0])] = String(e[1]);
      else if (e && typeof e === 'object' && 'name' in e) out[String((e as { name: unknown }).name)] = String((e as { reason?: unknown }).reason ?? '');
    }
  } else if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw)) out[k] = String(v);
  }
  return out;
}

/** Whether a tool is an MCP App (advertises a UI resource). */
export function isAppTool(tool: ToolDef): boolean {
  const meta = (tool._meta ?? {}) as Record<string, Json>;
  const ui = meta.ui as Record<string, Json> | undefined;
  return typeof ui?.resourceUri === 'string' || typeof meta['ui/resourceUri'] === 'string';
}

/** Parse a `_meta` editor's text: an object or nothing. */
export function parseMeta(text: string): { value?: JsonObject; error?: string } {
  if (text.trim() === '') return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: '_meta must be a JSON object' };
    return { value: v as JsonObject };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}
