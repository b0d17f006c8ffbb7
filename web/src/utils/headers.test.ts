import { describe, expect, it } from 'vitest';
import { collapsedSummary, exchangeFailed, frameIsRed, headersSectionVisible, verdictDisplay } from './headers';
import type { HeaderVerdicts } from './types';

const base: HeaderVerdicts = {
  request: [
    ['content-type', 'application/json'],
    ['mcp-protocol-version', '2026-07-28'],
    ['mcp-method', 'tools/call'],
    ['mcp-name', 'route-query'],
    ['mcp-param-region', 'us-west1'],
  ],
  status: 200,
  mirrored: [['mcp-name', 'route-query']],
  firstDisagreement: null,
  rows: [
    { header: 'Mcp-Param-Region', expected: 'us-west1', sent: 'us-west1', verdict: 'ok' },
    { header: 'Mcp-Param-Priority', expected: '3', sent: '3', verdict: 'ok' },
  ],
  failed: false,
};

describe('verdictDisplay', () => {
  it('passes only ok', () => {
    expect(verdictDisplay({ verdict: 'ok' })).toMatchObject({ symbol: '✓', passing: true, color: 'green' });
    expect(verdictDisplay({ verdict: 'mismatch' })).toMatchObject({ symbol: '✗', passing: false, color: 'red' });
    expect(verdictDisplay({ verdict: 'missing' }).label).toBe('never sent');
    expect(verdictDisplay({ verdict: 'undeclared' }).label).toMatch(/never declared/);
  });
  it('never reads an unchecked header as passing', () => {
    const d = verdictDisplay({ verdict: 'unchecked' });
    expect(d.passing).toBe(false);
    expect(d.label).toBe('unchecked — tool schema unavailable');
  });
  it('prefers the backend note', () => {
    expect(verdictDisplay({ verdict: 'mismatch', note: 'sent "a", body says "b"' }).label).toBe('sent "a", body says "b"');
  });
});

describe('collapsed row', () => {
  it('names the first disagreement', () => {
    const s = collapsedSummary({ ...base, firstDisagreement: 'mcp-name disagrees with the body' });
    expect(s).toEqual({ text: 'HTTP 200 · mcp-name disagrees with the body', tone: 'bad' });
  });
  it('tallies passing and unchecked rows', () => {
    expect(collapsedSummary(base)).toEqual({ text: 'HTTP 200 · 2 ✓', tone: 'ok' });
    const unchecked = { ...base, rows: [{ header: 'Mcp-Param-Region', expected: null, sent: 'us-west1', verdict: 'unchecked' as const }] };
    expect(collapsedSummary(unchecked)).toEqual({ text: 'HTTP 200 · 1 unchecked', tone: 'warn' });
  });
  it('names a failing row when no disagreement is given', () => {
    const bad = { ...base, rows: [{ header: 'Mcp-Param-Region', expected: 'us-west1', sent: null, verdict: 'missing' as const }] };
    expect(collapsedSummary(bad).text).toBe('HTTP 200 · Mcp-Param-Region never sent');
  });
  it('is red for 4xx/5xx and transport failures', () => {
    expect(exchangeFailed({ ...base, status: 400 })).toBe(true);
    expect(exchangeFailed({ ...base, status: null, failed: true })).toBe(true);
    expect(collapsedSummary({ ...base, status: null, failed: true, rows: [] }).tone).toBe('bad');
    expect(exchangeFailed(base)).toBe(false);
  });
  it('says what the server answered: a 400 is its status and body, not a transport failure (issue 24)', () => {
    const answered = { ...base, status: 400, failed: true, rows: [], responseExcerpt: '{"error":"Bad Request: no session"}' };
    expect(collapsedSummary(answered)).toEqual({ text: 'HTTP 400 · {"error":"Bad Request: no session"}', tone: 'bad' });
    const refused = { ...base, status: null, failed: true, rows: [], transportError: 'connection refused' };
    expect(collapsedSummary(refused).text).toBe('transport failure · connection refused');
  });
});

describe('visibility', () => {
  it('is absent without a matched exchange and hidden without cross-checked Mcp-* headers', () => {
    expect(headersSectionVisible(null)).toBe(false);
    expect(
      headersSectionVisible({ ...base, rows: [], mirrored: [], request: [['mcp-protocol-version', '2025-11-25']] }),
    ).toBe(false);
    expect(headersSectionVisible(base)).toBe(true);
  });
});

describe('frameIsRed', () => {
  it('marks 4xx/5xx responses and transport failures', () => {
    expect(frameIsRed({ meta: { status: 500 }, headers: null, kind: 'http-response' })).toBe(true);
    expect(frameIsRed({ meta: { status: 202 }, headers: null, kind: 'http-response' })).toBe(false);
    expect(frameIsRed({ meta: {}, headers: { ...base, status: 404 }, kind: 'http-request' })).toBe(true);
    expect(frameIsRed({ meta: { note: 'connection refused' }, headers: null, kind: 'lifecycle' })).toBe(true);
  });
  it('marks OAuth error answers and failed steps', () => {
    expect(frameIsRed({ meta: { status: 400, note: 'token request' }, headers: null, kind: 'oauth-response' })).toBe(true);
    expect(frameIsRed({ meta: { note: 'token request: no answer within 30000 ms' }, headers: null, kind: 'oauth-step' })).toBe(true);
    expect(frameIsRed({ meta: { note: 'iss matches the recorded issuer (RFC 9207)' }, headers: null, kind: 'oauth-step' })).toBe(false);
  });
});
