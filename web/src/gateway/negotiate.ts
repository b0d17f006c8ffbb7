// 002's protocol selection as pure decisions (seeds/002 "Protocol selection"; wire reference §2.6):
//
// - Auto calls `server/discover`, prefers 2026-07-28, and falls back to 2025-11-25 when the
//   gateway advertises it or when discovery receives a legacy compatibility response;
// - 2026-07-28 uses discovery and fails when the gateway does not support that version;
// - 2025-11-25 uses `initialize` and rejects a different negotiated version;
// - authentication, authorization, server failures and recognised modern protocol errors never
//   trigger a downgrade: they end the connection attempt with what happened.
//
// mcpscope_proto::era::classify_probe is the engine's version of the same table; this one adds
// what a browser behind the relay sees (the relay's refusals, HTTP statuses).

import type { Json, JsonObject } from '../utils/types';

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSION = '2025-11-25';

/** The protocol selector. */
export type ProtocolMode = 'auto' | typeof MODERN_VERSION | typeof LEGACY_VERSION;

/** JSON-RPC codes that only a 2026-07-28 server sends: a modern server, never a downgrade. */
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** JSON-RPC "Internal error": the server failed, which says nothing about its revision. */
export const INTERNAL_ERROR = -32603;

/** What the page saw of the `server/discover` exchange. */
export interface DiscoverOutcome {
  /** The request never got an HTTP answer (network, timeout). */
  network?: string;
  /** The relay refused it (`X-Mcpscope-Refusal: <rule>`). */
  refusal?: string;
  status?: number;
  /** The JSON-RPC response, when the body was one. */
  response?: JsonObject;
}

export type DiscoverVerdict =
  | { verdict: 'modern'; version: string }
  | { verdict: 'legacy'; reason: string }
  | { verdict: 'fail'; reason: string; auth?: boolean };

/** A gateway's error message as the page quotes it: at most 500 characters (the whole answer
 *  stays in the Output card). */
export const clip = (s: string): string => (s.length > 500 ? `${s.slice(0, 500)}…` : s);

const strings = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The verdict of a `server/discover` exchange for `mode` (Auto or 2026-07-28). */
export function classifyDiscover(mode: 'auto' | typeof MODERN_VERSION, o: DiscoverOutcome): DiscoverVerdict {
  const auto = mode === 'auto';
  const unsupported = (why: string): DiscoverVerdict =>
    auto ? { verdict: 'legacy', reason: why } : { verdict: 'fail', reason: `the gateway does not support ${MODERN_VERSION}: ${why}` };
  if (o.network !== undefined) return { verdict: 'fail', reason: `discovery got no answer: ${o.network}` };
  if (o.refusal !== undefined) return { verdict: 'fail', reason: `mcpscope's relay refused discovery (rule ${o.refusal})` };
  const status = o.status ?? 0;
  if (status === 401) return { verdict: 'fail', reason: 'the gateway asks for a bearer token (401)', auth: true };
  if (status === 403) return { verdict: 'fail', reason: 'the gateway refused access (403)' };
  if (status >= 500) return { verdict: 'fail', reason: `the gateway failed (HTTP ${status})` };
  const r = o.response;
  if (r && typeof r.result === 'object' && r.result !== null && !Array.isArray(r.result)) {
    const supported = strings(r.result.supportedVersions);
    if (supported.includes(MODERN_VERSION)) return { verdict: 'modern', version: MODERN_VERSION };
    if (auto && supported.includes(LEGACY_VERSION)) {
      return { verdict: 'legacy', reason: `server/discover advertises ${LEGACY_VERSION}, not ${MODERN_VERSION}` };
    }
    return { verdict: 'fail', reason: `server/discover lists no version this inspector speaks (${JSON.stringify(supported)})` };
  }
  const e = r?.error;
  if (e && typeof e === 'object' && !Array.isArray(e) && typeof e.code === 'number') {
    const message = typeof e.message === 'string' ? clip(e.message) : '';
    switch (e.code) {
      case UNSUPPORTED_PROTOCOL_VERSION: {
        const data = e.data && typeof e.data === 'object' && !Array.isArray(e.data) ? e.data : {};
        const supported = strings(data.supported);
        if (auto && supported.includes(LEGACY_VERSION) && !supported.includes(MODERN_VERSION)) {
          return { verdict: 'legacy', reason: `the gateway rejected ${MODERN_VERSION} (-32022) and advertises ${LEGACY_VERSION}` };
        }
        return { verdict: 'fail', reason: `the gateway rejected ${MODERN_VERSION} (-32022, supported: ${JSON.stringify(supported)})` };
      }
      case HEADER_MISMATCH:
      case MISSING_REQUIRED_CLIENT_CAPABILITY:
        return { verdict: 'fail', reason: `a 2026-07-28 error (${e.code} ${message}): the request must be fixed, no downgrade` };
      case INTERNAL_ERROR:
        return { verdict: 'fail', reason: `the gateway failed (${e.code} ${message})` };
      default:
        return unsupported(`server/discover answered ${e.code} ${message} (HTTP ${status}), a legacy compatibility response`);
    }
  }
  if (status === 400 || status === 404 || status === 405) {
    return unsupported(`server/discover answered HTTP ${status} without a 2026-07-28 error, a legacy compatibility response`);
  }
  return { verdict: 'fail', reason: `server/discover answered HTTP ${status} without a usable JSON-RPC response` };
}

/** 2025-11-25 mode: the `initialize` result must name exactly the version asked for. */
export function checkInitialize(result: Json | undefined): { ok: true } | { ok: false; reason: string } {
  const v = result && typeof result === 'object' && !Array.isArray(result) ? result.protocolVersion : undefined;
  if (v === LEGACY_VERSION) return { ok: true };
  return { ok: false, reason: `the gateway negotiated ${clip(typeof v === 'string' ? v : JSON.stringify(v ?? null))}, not ${LEGACY_VERSION}` };
}
