import { describe, expect, it } from 'vitest';
import {
  authOutcome,
  base64UrlDecode,
  decodeJwt,
  expiry,
  maskToken,
  notAppliesReason,
  oauthEntry,
  oauthFieldsError,
  parseScopeInput,
  pendingLogins,
  relativeTime,
  scopeDiff,
  scopeList,
  scopeUnion,
  spanText,
} from './auth';
import type { AuthView } from './types';

const bytesB64url = (b: Uint8Array) => btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const b64url = (s: string) => bytesB64url(new TextEncoder().encode(s));
const jwt = (header: object, payload: object, sig = 'c2lnbmF0dXJl') => `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}.${sig}`;

describe('decodeJwt', () => {
  it('decodes header and claims, with NumericDate claims as dates', () => {
    const t = jwt({ alg: 'HS256', typ: 'at+jwt' }, { sub: 'testkit-user', scope: 'mcp:read', iat: 1764460800, exp: 1764464400, nbf: 1764460800, note: 'é ✓' });
    const d = decodeJwt(t);
    expect(d.kind).toBe('jwt');
    if (d.kind !== 'jwt') return;
    expect(d.header).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(d.payload.sub).toBe('testkit-user');
    expect(d.payload.note).toBe('é ✓');
    expect(d.times).toEqual([
      { claim: 'iat', seconds: 1764460800, iso: '2025-11-30T00:00:00.000Z' },
      { claim: 'nbf', seconds: 1764460800, iso: '2025-11-30T00:00:00.000Z' },
      { claim: 'exp', seconds: 1764464400, iso: '2025-11-30T01:00:00.000Z' },
    ]);
  });
  it('accepts an unsigned JWT (empty signature) and ignores non-numeric times', () => {
    const d = decodeJwt(jwt({ alg: 'none' }, { exp: 'soon' }, ''));
    expect(d.kind).toBe('jwt');
    if (d.kind === 'jwt') expect(d.times).toEqual([]);
  });
  it('calls anything without three base64url parts opaque', () => {
    expect(decodeJwt('access-1')).toEqual({ kind: 'opaque', note: 'opaque token (not a JWT)' });
    expect(decodeJwt('gho_abc.def')).toMatchObject({ kind: 'opaque' });
    expect(decodeJwt('a b.c d.e f')).toMatchObject({ kind: 'opaque' });
    expect(decodeJwt('')).toMatchObject({ kind: 'opaque' });
    expect(decodeJwt('a.b.c.d.e')).toMatchObject({ kind: 'opaque', note: expect.stringContaining('JWE') });
  });
  it('says what is wrong with a malformed JWT', () => {
    expect(decodeJwt(`${b64url('not json')}.${b64url('{}')}.x`)).toEqual({ kind: 'malformed', error: 'looks like a JWT but the header is not JSON' });
    expect(decodeJwt(`${b64url('{}')}.${b64url('[1]')}.x`)).toEqual({ kind: 'malformed', error: 'looks like a JWT but the payload is not a JSON object' });
    expect(decodeJwt(`${b64url('{}')}.A.x`)).toMatchObject({ kind: 'malformed', error: expect.stringContaining('payload is not base64url') });
    // Invalid UTF-8 in the payload.
    const bad = bytesB64url(new Uint8Array([0xff, 0xfe]));
    expect(decodeJwt(`${b64url('{}')}.${bad}.x`)).toMatchObject({ kind: 'malformed', error: expect.stringContaining('UTF-8') });
  });
  it('decodes base64url with and without padding', () => {
    expect(Array.from(base64UrlDecode('-_8'))).toEqual([0xfb, 0xff]);
    expect(() => base64UrlDecode('a+b')).toThrow();
  });
  it('masks tokens', () => {
    expect(maskToken('short')).toBe('•••••');
    const m = maskToken('abcd0123456789wxyz');
    expect(m.startsWith('abcd')).toBe(true);
    expect(m).toContain('wxyz (18 characters)');
    expect(m).not.toContain('0123');
  });
});

describe('scopes', () => {
  it('splits, unions and marks what a step-up adds', () => {
    expect(scopeList(' mcp:read  mcp:write mcp:read ')).toEqual(['mcp:read', 'mcp:write']);
    expect(scopeList(null)).toEqual([]);
    expect(scopeUnion(['a', 'b'], ['b', 'c'])).toEqual(['a', 'b', 'c']);
    expect(scopeDiff(['mcp:read'], ['mcp:read', 'mcp:admin'])).toEqual([
      { scope: 'mcp:read', isNew: false },
      { scope: 'mcp:admin', isNew: true },
    ]);
    expect(scopeDiff([], ['x'])).toEqual([{ scope: 'x', isNew: true }]);
    expect(parseScopeInput('mcp:admin, files:read  ')).toEqual(['mcp:admin', 'files:read']);
  });
});

describe('expiry', () => {
  const now = 1_764_460_800_000;
  it('says how long is left or since when it expired', () => {
    expect(expiry(null, now)).toBeNull();
    expect(expiry(1_764_460_800 + 3540, now)).toMatchObject({ relative: 'in 59 min', expired: false });
    expect(expiry(1_764_460_800 + 30, now)?.relative).toBe('in 30 s');
    expect(expiry(1_764_460_800 + 2 * 3600 + 300, now)?.relative).toBe('in 2 h 05 min');
    expect(expiry(1_764_460_800 - 180, now)).toMatchObject({ relative: 'expired 3 min ago', expired: true });
    expect(expiry(1_764_460_800, now)?.expired).toBe(true);
    expect(expiry(1_764_460_800 + 3600, now)?.date.toISOString()).toBe('2025-11-30T01:00:00.000Z');
    expect(spanText(3 * 86_400 + 4 * 3600)).toBe('3 d 4 h');
    expect(relativeTime(1_764_460_800 - 12, now)).toBe('12 s ago');
    expect(relativeTime(1_764_460_800 + 600, now)).toBe('in 10 min');
  });
});

const view = (over: Partial<AuthView>): AuthView => ({
  server: 'notes',
  applies: true,
  state: 'none',
  pending: null,
  summary: null,
  error: null,
  secretStore: { error: 'not opened yet: it opens when a server needs it' },
  callbackUrl: 'http://127.0.0.1:6274/oauth/callback',
  ...over,
});
const pending = (id: string, startedAt: string) => ({ id, url: 'https://as/authorize', issuer: 'https://as', scopes: ['mcp:read'], reason: 'login' as const, startedAt });

describe('logins', () => {
  it('toasts only the end of a login it saw pending', () => {
    const waiting = view({ state: 'authorizing', pending: pending('1', '2025-01-01T00:00:00Z') });
    const redeeming = view({ state: 'authorizing' });
    const summary = { issuer: 'https://as', authorizationServerMetadata: null, protectedResourceMetadata: null, resource: null, client: null, scope: 'mcp:read mcp:admin', requestedScope: null, tokenType: 'Bearer', expiresAt: null, refreshToken: true, profile: 'default' };
    const authorized = view({ state: 'authorized', summary });
    // pending → callback received (pending cleared, code being redeemed) → authorized.
    let o = authOutcome(false, waiting);
    expect(o).toEqual({ awaiting: true, toast: null });
    o = authOutcome(o.awaiting, redeeming);
    expect(o).toEqual({ awaiting: true, toast: null });
    o = authOutcome(o.awaiting, authorized);
    expect(o).toEqual({ awaiting: false, toast: { color: 'green', title: 'Authorized notes', message: 'scopes: mcp:read mcp:admin' } });
    // Once only.
    expect(authOutcome(o.awaiting, authorized).toast).toBeNull();
    // Cancelled or denied.
    expect(authOutcome(true, view({ state: 'failed', error: 'the login was cancelled in the web UI' }))).toEqual({
      awaiting: false,
      toast: { color: 'red', title: 'Authorization of notes failed', message: 'the login was cancelled in the web UI' },
    });
    // A refresh nobody waited for, and forgotten tokens: no toast.
    expect(authOutcome(false, authorized).toast).toBeNull();
    expect(authOutcome(true, view({ state: 'none' }))).toEqual({ awaiting: false, toast: null });
  });
  it('lists pending logins oldest first', () => {
    const a = view({ server: 'a', pending: pending('1', '2025-01-01T00:00:02Z') });
    const b = view({ server: 'b', pending: pending('2', '2025-01-01T00:00:01Z') });
    expect(pendingLogins({ a, b, c: view({ server: 'c' }) }).map((v) => v.server)).toEqual(['b', 'a']);
  });
  it('says why OAuth does not apply', () => {
    expect(notAppliesReason('stdio', {})).toContain('stdio');
    expect(notAppliesReason('http', { headers: { authorization: 'Bearer x' } })).toContain('Authorization header');
    expect(notAppliesReason('sse', { headers: { 'X-Api-Key': 'x' } })).toBeNull();
  });
});

describe('oauth entry', () => {
  const empty = { clientId: '', clientMetadataUrl: '', scope: '', profile: '' };
  it('is left out when empty and trimmed otherwise', () => {
    expect(oauthEntry(empty)).toBeUndefined();
    expect(oauthEntry({ ...empty, clientId: ' ' })).toBeUndefined();
    expect(oauthEntry({ ...empty, clientId: ' my-app ', scope: 'mcp:read, mcp:write' })).toEqual({ clientId: 'my-app', scope: 'mcp:read mcp:write' });
    expect(oauthEntry({ ...empty, profile: 'work' })).toEqual({ profile: 'work' });
  });
  it('wants an https client metadata URL with a path', () => {
    expect(oauthFieldsError(empty)).toBeNull();
    expect(oauthFieldsError({ ...empty, clientMetadataUrl: 'https://app.example/client.json' })).toBeNull();
    expect(oauthFieldsError({ ...empty, clientMetadataUrl: 'http://app.example/client.json' })).toContain('https');
    expect(oauthFieldsError({ ...empty, clientMetadataUrl: 'https://app.example/' })).toContain('path');
    expect(oauthFieldsError({ ...empty, clientMetadataUrl: 'nope' })).toContain('not a URL');
  });
});
