// How a server's connection status reads (003_* "Status Indicators" and "Connection lifecycle").

import type { ServerInfo, ServerStatus, ServerView } from './types';

export interface StatusDisplay {
  color: 'green' | 'yellow' | 'red' | 'gray';
  label: string;
  pulsing: boolean;
}

export function statusDisplay(s: Pick<ServerView, 'status' | 'error' | 'latencyMs'>): StatusDisplay {
  const st: ServerStatus = s.status;
  switch (st) {
    case 'connected':
      return { color: 'green', label: 'Connected', pulsing: false };
    case 'connecting':
      return { color: 'yellow', label: 'Connecting...', pulsing: true };
    case 'failed':
      return { color: 'red', label: `Failed (${s.error?.retries ?? 0})`, pulsing: false };
    default:
      return { color: 'gray', label: 'Disconnected', pulsing: false };
  }
}

/** "Connected (23ms)" for the top bar. */
export function statusWithLatency(s: Pick<ServerView, 'status' | 'error' | 'latencyMs'>): string {
  const d = statusDisplay(s);
  return s.status === 'connected' && s.latencyMs !== null && s.latencyMs !== undefined
    ? `${d.label} (${s.latencyMs}ms)`
    : d.label;
}

/** Stateless / session / sessionless legacy, from the era and whether a session id was issued. */
export function eraMode(info: Pick<ServerInfo, 'era' | 'sessionId' | 'transport' | 'connectionKind'>): string {
  if (info.connectionKind) return info.connectionKind;
  if (info.era === 'modern') return 'stateless';
  if (info.sessionId) return 'session';
  if (info.transport === 'stdio') return 'session (stdio)';
  return 'sessionless legacy';
}

/** The protocol selector's choices (002_*). */
export const PROTOCOL_CHOICES = [
  { value: 'auto', label: 'Auto' },
  { value: 'modern', label: '2026-07-28' },
  { value: 'legacy', label: '2025-11-25' },
] as const;

/** The command line or URL a card shows (and copies). */
export function targetOf(s: Pick<ServerView, 'entry' | 'target'>): string {
  if (s.target) return s.target;
  const e = s.entry;
  if (e.url) return e.url;
  return [e.command ?? '', ...(e.args ?? [])].filter(Boolean).join(' ');
}
