// What the gateway page computes for display, pure: the backend server of a tool (002: the
// registration whose prefix matches the tool's name; here the file's `servers` prefixes, longest
// first), a prompt's messages as text, the size estimate (four characters per token, an
// estimate, not a tokenizer), the outcome of a call as the Output card and the statistics count it.

import type { Json, JsonObject } from '../utils/types';

/** The backend server of `name`: the value of the longest prefix of `servers` it starts with. */
export function serverOf(name: string, servers: Record<string, string> | undefined): string | undefined {
  let best: string | undefined;
  let bestLen = -1;
  for (const [prefix, server] of Object.entries(servers ?? {})) {
    if (prefix !== '' && name.startsWith(prefix) && prefix.length > bestLen) {
      best = server;
      bestLen = prefix.length;
    }
  }
  return best;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The text of a prompt's messages, as Copy puts it on the clipboard: `role: text` blocks. */
export function messagesText(messages: Json | undefined): string {
  if (!Array.isArray(messages)) return '';
  return messages
    .map((m) => {
      const o = isObject(m) ? m : {};
      const blocks = Array.isArray(o.content) ? o.content : [o.content];
      const text = blocks
        .map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : isObject(b) && b.type ? `[${String(b.type)}]` : ''))
        .filter((t) => t !== '')
        .join('\n');
      return `${typeof o.role === 'string' ? o.role : 'unknown'}: ${text}`;
    })
    .join('\n\n');
}

/** The size estimate of `text`: characters (code points) / 4, rounded up. */
export function tokenEstimate(text: string): number {
  return Math.ceil(Array.from(text).length / 4);
}

/** How a tools/call or prompts/get ended, for the Output card and the statistics. */
export type Outcome = 'ok' | 'tool-error' | 'input-required' | 'session-expired' | 'error';

/** A JSON-RPC result's outcome: `resultType: "input_required"` is shown as Input required and
 *  counted as a warning (no continuation: 002); `isError: true` is the tool's own failure. */
export function resultOutcome(result: Json | undefined): Outcome {
  if (!isObject(result)) return 'error';
  if (result.resultType === 'input_required') return 'input-required';
  if (result.isError === true) return 'tool-error';
  return 'ok';
}

/** Session statistics: calls, errors, warnings. */
export interface Stats {
  calls: number;
  errors: number;
  warnings: number;
}

export const NO_STATS: Stats = { calls: 0, errors: 0, warnings: 0 };

/** The statistics after one call that ended as `outcome` (an expired session is a warning, as
 *  002 shows it). */
export function count(stats: Stats, outcome: Outcome): Stats {
  return {
    calls: stats.calls + 1,
    errors: stats.errors + (outcome === 'error' || outcome === 'tool-error' ? 1 : 0),
    warnings: stats.warnings + (outcome === 'input-required' || outcome === 'session-expired' ? 1 : 0),
  };
}

/** `_meta` key-value rows as an object (empty keys skipped; a value that parses as JSON is
 *  sent as that JSON, else as the string). */
export function metaObject(rows: { key: string; value: string }[]): JsonObject {
  const out: JsonObject = {};
  for (const { key, value } of rows) {
    const k = key.trim();
    if (k === '') continue;
    let v: Json = value;
    try {
      if (/^\s*([[{"]|-?\d|true\b|false\b|null\b)/.test(value)) v = JSON.parse(value) as Json;
    } catch {
      v = value;
    }
    out[k] = v;
  }
  return out;
}
