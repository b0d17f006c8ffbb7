// The one rule for a URL a server supplied that the page might open or link: an OAuth
// authorization URL, a URL elicitation, a resource link, an MCP App's `ui/open-link`. Only
// https:, and http: on this machine (localhost, 127.0.0.0/8, [::1]); anything else — file:,
// javascript:, data:, a custom scheme an OS hands to some program — is refused with the reason,
// and so is a URL with a user name or password in it (it can hide the real host).
//
// The backend has the same rule (`mcpscope_proto::openable`); both are tested against
// `crates/mcpscope-proto/src/openable_cases.json`, so they cannot drift apart unnoticed.

export type Openable = { ok: true; url: string } | { ok: false; reason: string };

export function openable(raw: string): Openable {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return { ok: false, reason: 'it is not an absolute URL' };
  }
  if (u.username || u.password) return { ok: false, reason: 'a URL with a user name or password in it is refused (it can hide the real host)' };
  if (u.protocol === 'https:' && u.hostname) return { ok: true, url: u.href };
  if (u.protocol === 'http:' && isLoopback(u.hostname)) return { ok: true, url: u.href };
  if (u.protocol === 'http:') return { ok: false, reason: 'http: is opened only on this machine (localhost, 127.0.0.1, [::1]); anything else must be https:' };
  return { ok: false, reason: `the ${u.protocol} scheme is refused: only https: URLs (and http: on this machine) are opened` };
}

function isLoopback(hostname: string): boolean {
  // The URL parser has already lower-cased the host and normalised IPv4 (0x7f000001 → 127.0.0.1).
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
