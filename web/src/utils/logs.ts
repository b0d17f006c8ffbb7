// Log stream helpers: levels in RFC 5424 order, colours, filtering, export.

import type { LogEvent } from './types';

export const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type Level = (typeof LEVELS)[number];
/** The level the Logs selector starts at, and the one a 2026-07-28 connection gets at connect
 *  (its servers log nothing until a request names a level). */
export const DEFAULT_LOG_LEVEL: Level = 'debug';

export function levelRank(level: string): number {
  const i = LEVELS.indexOf(level.toLowerCase() as Level);
  return i < 0 ? 1 : i;
}

/** Colour by severity (003_*: debug gray, info blue, warning yellow, error red). */
export function levelColor(level: string): 'gray' | 'blue' | 'cyan' | 'yellow' | 'red' | 'grape' {
  switch (level.toLowerCase()) {
    case 'debug':
      return 'gray';
    case 'info':
      return 'blue';
    case 'notice':
      return 'cyan';
    case 'warning':
      return 'yellow';
    case 'error':
      return 'red';
    default:
      return 'grape';
  }
}

/** The text of a log's data. */
export function logText(data: unknown): string {
  return typeof data === 'string' ? data : JSON.stringify(data);
}

export interface LogFilter {
  text: string;
  levels: Set<string>;
  historyId: number | null;
}

export function filterLogs<T extends LogEvent>(logs: T[], f: LogFilter): T[] {
  const q = f.text.trim().toLowerCase();
  return logs.filter(
    (l) =>
      f.levels.has(l.level.toLowerCase()) &&
      (f.historyId === null || l.historyId === f.historyId) &&
      (!q || logText(l.data).toLowerCase().includes(q) || (l.logger ?? '').toLowerCase().includes(q)),
  );
}

/** NDJSON export of logs. */
export function exportLogs(logs: LogEvent[]): string {
  return logs.map((l) => JSON.stringify(l)).join('\n') + (logs.length ? '\n' : '');
}
