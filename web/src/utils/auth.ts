// Authorization (OAuth 2.1) as the SPA shows it: JWT decoding for the decoder (no signature
// check — the backend and the resource server do that), scope lists and what a step-up adds,
// token expiry for humans, the toasts of a finished login, and the catalog entry's `oauth`.
// Pure functions, tested in auth.test.ts.

import type { AuthView, CatalogEntry, JsonObject, OAuthEntry, Transport } from './types';

// --- JWT ---

/** A claim holding NumericDate seconds (RFC 7519 §2), shown as a date. */
export const TIME_CLAIMS = ['iat', 'nbf', 'exp', 'auth_time'] as const;

export interface JwtTime {
  claim: string;
  seconds: number;
  /** ISO 8601, UTC. */
  iso: string;
}

export type DecodedToken =
  | { kind: 'jwt'; header: JsonObject; payload: JsonObject; signature: string; times: JwtTime[] }
  | { kind: 'opaque'; note: string }
  | { kind: 'malformed'; error: string };

const B64URL = /^[A-Za-z0-9_-]*$/;

/** Bytes of a base64url string (padding optional); throws on characters outside the alphabet. */
export function base64UrlDecode(part: string): Uint8Array {
  if (!B64URL.test(part)) throw new Error('not base64url');
  if (part.length % 4 === 1) throw new Error('not base64url (bad length)');
  const b64 = part.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (part.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function jsonPart(part: string, what: string): JsonObject {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(base64UrlDecode(part));
  } catch (e) {
    throw new Error(`the ${what} is not base64url-encoded UTF-8 (${e instanceof Error ? e.message : String(e)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`the ${what} is not JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`the ${what} is not a JSON object`);
  return value as JsonObject;
}

/** The NumericDate claims of a payload, as dates. */
export function jwtTimes(payload: JsonObject): JwtTime[] {
  const out: JwtTime[] = [];
  for (const claim of TIME_CLAIMS) {
    const v = payload[claim];
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    const d = new Date(v * 1000);
    if (Number.isNaN(d.getTime())) continue;
    out.push({ claim, seconds: v, iso: d.toISOString() });
  }
  return out;
}

/**
 * Decode an access token for display: a JWS compact JWT (three base64url parts whose first two
 * are JSON objects) shows its header and claims; anything else is opaque. The signature is never
 * checked here.
 */
export function decodeJwt(token: string): DecodedToken {
  const t = token.trim();
  const parts = t.split('.');
  if (parts.length === 5) return { kind: 'opaque', note: 'an encrypted JWT (JWE): only the authorization server can read it' };
  if (parts.length !== 3) return { kind: 'opaque', note: 'opaque token (not a JWT)' };
  if (parts.some((p) => !B64URL.test(p))) return { kind: 'opaque', note: 'opaque token (not a JWT)' };
  try {
    const header = jsonPart(parts[0], 'header');
    const payload = jsonPart(parts[1], 'payload');
    return { kind: 'jwt', header, payload, signature: parts[2], times: jwtTimes(payload) };
  } catch (e) {
    return { kind: 'malformed', error: `looks like a JWT but ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** A token for the screen: the first and last 4 characters, the rest masked. */
export function maskToken(token: string): string {
  if (token.length <= 12) return '•'.repeat(token.length);
  return `${token.slice(0, 4)}${'•'.repeat(Math.min(24, token.length - 8))}${token.slice(-4)} (${token.length} characters)`;
}

// --- scopes ---

/** The scopes of a space-separated `scope` string (RFC 6749 §3.3), without repeats. */
export function scopeList(scope: string | null | undefined): string[] {
  const out: string[] = [];
  for (const s of (scope ?? '').split(/\s+/)) if (s && !out.includes(s)) out.push(s);
  return out;
}

/** Every scope of `a` then those of `b` not in `a`. */
export function scopeUnion(a: string[], b: string[]): string[] {
  const out = [...a];
  for (const s of b) if (!out.includes(s)) out.push(s);
  return out;
}

/** The scopes a login asks for, each marked when it is not granted yet (step-up). */
export function scopeDiff(granted: string[], requested: string[]): { scope: string; isNew: boolean }[] {
  return requested.map((scope) => ({ scope, isNew: !granted.includes(scope) }));
}

/** The extra scopes typed by a person ("a b, c") for Re-authorize. */
export function parseScopeInput(text: string): string[] {
  return scopeList(text.replace(/,/g, ' '));
}

// --- expiry ---

/** "45 s", "12 min", "2 h 05 min", "3 d 4 h". */
export function spanText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** "in 5 min" / "3 min ago" for Unix seconds relative to `nowMs`. */
export function relativeTime(seconds: number, nowMs: number): string {
  const delta = seconds - nowMs / 1000;
  return delta > 0 ? `in ${spanText(delta)}` : `${spanText(-delta)} ago`;
}

export interface Expiry {
  /** When, as a Date (the view formats it in local time). */
  date: Date;
  /** "in 59 min" or "expired 3 min ago". */
  relative: string;
  expired: boolean;
}

/** A token's expiry (`expiresAt` Unix seconds) relative to `nowMs`; null when it has none. */
export function expiry(expiresAt: number | null | undefined, nowMs: number): Expiry | null {
  if (expiresAt === null || expiresAt === undefined || !Number.isFinite(expiresAt)) return null;
  const delta = expiresAt - nowMs / 1000;
  const expired = delta <= 0;
  return { date: new Date(expiresAt * 1000), relative: expired ? `expired ${spanText(-delta)} ago` : `in ${spanText(delta)}`, expired };
}

// --- logins ---

/** The pending logins of every server, oldest first. */
export function pendingLogins(auth: Record<string, AuthView>): AuthView[] {
  return Object.values(auth)
    .filter((v) => v.pending)
    .sort((a, b) => (a.pending!.startedAt < b.pending!.startedAt ? -1 : a.pending!.startedAt > b.pending!.startedAt ? 1 : 0));
}

export interface AuthToast {
  color: 'green' | 'red';
  title: string;
  message: string;
}

/**
 * Follow a login to its end. `awaiting`: this page saw the server's login pending and has not
 * seen how it ended. The callback clears `pending` while the flow still redeems the code (state
 * `authorizing`); the outcome comes with the next event (`authorized` or `failed`), which gets a
 * toast. A flow that never needed a person (a refresh) is never awaited, so never toasted.
 */
export function authOutcome(awaiting: boolean, next: AuthView): { awaiting: boolean; toast: AuthToast | null } {
  if (next.pending) return { awaiting: true, toast: null };
  if (!awaiting) return { awaiting: false, toast: null };
  if (next.state === 'authorizing') return { awaiting: true, toast: null };
  if (next.state === 'authorized') {
    const scopes = scopeList(next.summary?.scope);
    return {
      awaiting: false,
      toast: { color: 'green', title: `Authorized ${next.server}`, message: scopes.length ? `scopes: ${scopes.join(' ')}` : 'no scope granted' },
    };
  }
  if (next.state === 'failed') {
    return { awaiting: false, toast: { color: 'red', title: `Authorization of ${next.server} failed`, message: next.error ?? 'the login failed' } };
  }
  return { awaiting: false, toast: null };
}

/** Why OAuth does not apply to a server, or null when it does (as far as the entry tells). */
export function notAppliesReason(transport: Transport, entry: CatalogEntry): string | null {
  if (transport === 'stdio') return 'OAuth applies to HTTP and SSE servers only: a stdio server takes its credentials from its environment.';
  if (Object.keys(entry.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
    return 'The entry sets its own Authorization header, so mcpscope does not run OAuth for this server.';
  return null;
}

// --- the catalog entry ---

export interface OAuthFields {
  clientId: string;
  clientMetadataUrl: string;
  scope: string;
  profile: string;
}

export function oauthFields(o: OAuthEntry | undefined): OAuthFields {
  return { clientId: o?.clientId ?? '', clientMetadataUrl: o?.clientMetadataUrl ?? '', scope: o?.scope ?? '', profile: o?.profile ?? '' };
}

/** `entry.oauth` from the form: trimmed, empty fields left out; undefined when all are empty. */
export function oauthEntry(f: OAuthFields): OAuthEntry | undefined {
  const out: OAuthEntry = {};
  if (f.clientId.trim()) out.clientId = f.clientId.trim();
  if (f.clientMetadataUrl.trim()) out.clientMetadataUrl = f.clientMetadataUrl.trim();
  const scope = scopeList(f.scope.replace(/,/g, ' ')).join(' ');
  if (scope) out.scope = scope;
  if (f.profile.trim()) out.profile = f.profile.trim();
  return Object.keys(out).length ? out : undefined;
}

/** What is wrong with the OAuth fields, or null. */
export function oauthFieldsError(f: OAuthFields): string | null {
  const u = f.clientMetadataUrl.trim();
  if (!u) return null;
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    return 'The client metadata URL is not a URL';
  }
  if (url.protocol !== 'https:') return 'The client metadata URL must be https';
  if (url.pathname === '/' || url.pathname === '') return 'The client metadata URL needs a path (it is the client id)';
  return null;
}
