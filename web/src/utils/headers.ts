// How the Traffic screen shows the HTTP headers section of an outgoing frame (000_* "Inline HTTP
// headers"): verdict symbols and colours, the collapsed row's text, and when the row is red.
// The verdicts themselves are computed by the backend; this only decides how they read.

import type { FrameView, HeaderRow, HeaderVerdicts, Verdict } from './types';

export interface VerdictDisplay {
  symbol: string;
  color: 'green' | 'red' | 'yellow';
  label: string;
  passing: boolean;
}

/** The display of one `Mcp-*` row's verdict. */
export function verdictDisplay(row: Pick<HeaderRow, 'verdict' | 'note'>): VerdictDisplay {
  const v: Verdict = row.verdict;
  switch (v) {
    case 'ok':
      return { symbol: '✓', color: 'green', label: row.note || 'matches the body', passing: true };
    case 'mismatch':
      return { symbol: '✗', color: 'red', label: row.note || 'disagrees with the body', passing: false };
    case 'missing':
      return { symbol: '✗', color: 'red', label: row.note || 'never sent', passing: false };
    case 'undeclared':
      return { symbol: '✗', color: 'red', label: row.note || 'names a parameter the tool never declared', passing: false };
    case 'unchecked':
    default:
      // An unverifiable header never reads as a passing one.
      return { symbol: '?', color: 'yellow', label: row.note || 'unchecked — tool schema unavailable', passing: false };
  }
}

function isMcpHeader(name: string): boolean {
  return /^mcp-/i.test(name);
}

/**
 * Whether the section is drawn: absent when no exchange was matched (`null`), hidden when the
 * exchange carries no cross-checked `Mcp-*` headers (e.g. a legacy-era server).
 */
export function headersSectionVisible(h: HeaderVerdicts | null | undefined): h is HeaderVerdicts {
  if (!h) return false;
  return (
    h.rows.length > 0 ||
    h.mirrored.length > 0 ||
    h.request.some(([name]) => isMcpHeader(name) && !/^mcp-protocol-version$|^mcp-session-id$/i.test(name))
  );
}

/** True when the exchange returned 4xx/5xx or failed at the transport level. */
export function exchangeFailed(h: HeaderVerdicts): boolean {
  return h.failed || (h.status !== null && h.status >= 400);
}

export interface CollapsedSummary {
  text: string;
  tone: 'ok' | 'bad' | 'warn';
}

/** What the server answered: its status (a 4xx is an answer, not a transport failure), the
 *  transport failure when there was no answer, or none yet. */
export function answerStatus(h: Pick<HeaderVerdicts, 'status' | 'failed'>): string {
  if (h.status !== null) return `HTTP ${h.status}`;
  return h.failed ? 'transport failure' : 'no response';
}

/** What the server said with a failed answer, or why there was none (a line, maybe cut). */
export function answerDetail(h: Pick<HeaderVerdicts, 'responseExcerpt' | 'transportError'>): string | null {
  return h.responseExcerpt ?? h.transportError ?? null;
}

/** The text of the collapsed headers row: the first disagreement named, else a tally. */
export function collapsedSummary(h: HeaderVerdicts): CollapsedSummary {
  const status = answerStatus(h);
  if (h.firstDisagreement) return { text: `${status} · ${h.firstDisagreement}`, tone: 'bad' };
  const bad = h.rows.filter((r) => r.verdict !== 'ok' && r.verdict !== 'unchecked');
  if (bad.length > 0) {
    return { text: `${status} · ${bad[0].header} ${verdictDisplay(bad[0]).label}`, tone: 'bad' };
  }
  const detail = answerDetail(h);
  if (exchangeFailed(h)) return { text: detail ? `${status} · ${detail}` : status, tone: 'bad' };
  const unchecked = h.rows.filter((r) => r.verdict === 'unchecked').length;
  const ok = h.rows.filter((r) => r.verdict === 'ok').length;
  const parts = [status];
  if (ok > 0) parts.push(`${ok} ✓`);
  if (unchecked > 0) parts.push(`${unchecked} unchecked`);
  if (h.rows.length === 0) parts.push(`${h.mirrored.length} Mcp-* mirrored`);
  return { text: parts.join(' · '), tone: unchecked > 0 ? 'warn' : 'ok' };
}

/** Whether a Traffic row is drawn red: a 4xx/5xx response or a transport failure. */
export function frameIsRed(f: Pick<FrameView, 'meta' | 'headers' | 'kind'>): boolean {
  if (f.meta.status !== undefined && f.meta.status >= 400) return true;
  if (f.headers && exchangeFailed(f.headers)) return true;
  if (f.kind === 'lifecycle' && /fail|refused|error|reset|timed out/i.test(f.meta.note ?? '')) return true;
  if (f.kind === 'oauth-step' && /could not|fail|refused|denied|timed out|no answer|no authorization response/i.test(f.meta.note ?? '')) return true;
  return false;
}
