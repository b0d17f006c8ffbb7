// Content blocks of tool results, prompt messages and resource contents: what kind each is.

import type { Json, JsonObject } from './types';

export type ContentKind = 'text' | 'image' | 'audio' | 'resource_link' | 'resource' | 'unknown';

export function contentKind(block: Json): ContentKind {
  if (!block || typeof block !== 'object' || Array.isArray(block)) return 'unknown';
  switch ((block as JsonObject).type) {
    case 'text':
      return 'text';
    case 'image':
      return 'image';
    case 'audio':
      return 'audio';
    case 'resource_link':
      return 'resource_link';
    case 'resource':
      return 'resource';
    default:
      return 'unknown';
  }
}

/** A data: URL for base64 content. */
export function dataUrl(mimeType: string | undefined, base64: string): string {
  return `data:${mimeType || 'application/octet-stream'};base64,${base64}`;
}

/** How a resource content item (text or blob) is best viewed. */
export type ResourceView = 'json' | 'text' | 'image' | 'audio' | 'html' | 'binary';

export function resourceView(item: { mimeType?: string; text?: string; blob?: string }): ResourceView {
  const mime = (item.mimeType ?? '').toLowerCase();
  if (item.blob !== undefined) {
    if (mime.startsWith('image/')) return 'image';
    if (mime.startsWith('audio/')) return 'audio';
    return 'binary';
  }
  if (mime.includes('json')) return 'json';
  if (item.text !== undefined && /^\s*[[{]/.test(item.text)) {
    try {
      JSON.parse(item.text);
      return 'json';
    } catch {
      /* not JSON */
    }
  }
  if (mime.startsWith('text/html')) return 'html';
  return 'text';
}

/** The plain messages of a prompt result, as "role: text" lines. */
export function messagesAsText(messages: Json): string {
  if (!Array.isArray(messages)) return '';
  return messages
    .map((m) => {
      const msg = m as JsonObject;
      const c = msg.content as Json;
      const blocks = Array.isArray(c) ? c : [c];
      const text = blocks
        .map((b) => {
          const kind = contentKind(b);
          const o = (b ?? {}) as JsonObject;
          if (kind === 'text') return String(o.text ?? '');
          if (kind === 'resource') return `[resource ${String(((o.resource ?? {}) as JsonObject).uri ?? '')}]`;
          return `[${kind}]`;
        })
        .join('\n');
      return `${String(msg.role ?? '?')}: ${text}`;
    })
    .join('\n\n');
}

/** Resource annotations as display strings (audience, priority high/medium/low). */
export function resourceAnnotations(r: { annotations?: JsonObject }): { audience: string[]; priority?: string } {
  const a = r.annotations ?? {};
  const audience = Array.isArray(a.audience) ? a.audience.map(String) : [];
  const p = typeof a.priority === 'number' ? a.priority : undefined;
  const priority = p === undefined ? undefined : `${p} (${p >= 0.7 ? 'high' : p >= 0.4 ? 'medium' : 'low'})`;
  return { audience, priority };
}
