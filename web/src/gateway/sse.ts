// A request-scoped SSE response (Streamable HTTP, both revisions): the events the gateway sends
// about one request, ending with its response. The page reads the stream until the JSON-RPC
// response whose id is the request's, then stops reading (which ends the stream); everything
// before it (progress, log notifications, a legacy priming event with empty data) is kept for
// the Output card but not acted on. Bounded: a stream that never answers is cut at `maxBytes`.

import type { Json, JsonObject } from '../utils/types';

/** What a stream held: the response (if it came) and the messages before it. */
export interface SseRead {
  response?: JsonObject;
  before: Json[];
  /** Why reading stopped without a response (stream ended, too big). */
  ended?: string;
}

/** Split SSE text into the `data` of each complete event (comments and other fields ignored);
 *  `rest` is the incomplete tail to prepend to the next chunk. */
export function sseEvents(text: string): { events: string[]; rest: string } {
  const normalised = text.replace(/\r\n?/g, '\n');
  const blocks = normalised.split('\n\n');
  const rest = blocks.pop() ?? '';
  const events: string[] = [];
  for (const block of blocks) {
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      if (line === 'data') data.push('');
      else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    if (data.length > 0) events.push(data.join('\n'));
  }
  return { events, rest };
}

const isResponseTo = (m: Json, id: number | string): m is JsonObject =>
  typeof m === 'object' && m !== null && !Array.isArray(m) && m.id === id && ('result' in m || 'error' in m) && !('method' in m);

/** Read `body` until the response to `id`. */
export async function readSse(body: ReadableStream<Uint8Array>, id: number | string, maxBytes: number): Promise<SseRead> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const before: Json[] = [];
  let pending = '';
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        pending += decoder.decode();
        // A last event without its blank line still counts.
        const { events } = sseEvents(`${pending}\n\n`);
        const found = take(events, id, before);
        return found ? { response: found, before } : { before, ended: 'the stream ended before the response' };
      }
      total += value.byteLength;
      if (total > maxBytes) return { before, ended: `the stream passed ${maxBytes} bytes without the response` };
      pending += decoder.decode(value, { stream: true });
      const { events, rest } = sseEvents(pending);
      pending = rest;
      const found = take(events, id, before);
      if (found) return { response: found, before };
    }
  } finally {
    // Stop reading: the response is in (or never will be); the stream needs no more.
    void reader.cancel().catch(() => undefined);
  }
}

/** The response to `id` among `events`; other parsed messages go to `before` (at most 200). */
function take(events: string[], id: number | string, before: Json[]): JsonObject | undefined {
  for (const e of events) {
    if (e.trim() === '') continue;
    let m: Json;
    try {
      m = JSON.parse(e) as Json;
    } catch {
      if (before.length < 200) before.push(e);
      continue;
    }
    if (isResponseTo(m, id)) return m;
    if (before.length < 200) before.push(m);
  }
  return undefined;
}
