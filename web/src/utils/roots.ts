// The Roots editor's checks, as the backend makes them (crates/mcpscope-inspect/src/roots.rs):
// shown under the field at once, before the PUT; the backend checks again and its message is
// shown the same way if it refuses.

export interface RootRow {
  uri: string;
  name?: string;
}

export const MAX_ROOTS = 100;
export const MAX_URI_BYTES = 4096;
export const MAX_NAME_CHARS = 200;

/** Why `uri` is not a root's URI (the backend's words), or null. */
export function uriProblem(uri: string): string | null {
  const u = uri.trim();
  if (!u) return 'a root needs a URI, e.g. file:///home/me/project';
  if (new TextEncoder().encode(u).length > MAX_URI_BYTES) return `longer than ${MAX_URI_BYTES} bytes`;
  if (u.startsWith('/')) return `"${u}" is a path, not a URI; write it as "file://${u}"`;
  let parsed: URL;
  try {
    parsed = new URL(u);
  } catch {
    return `"${u}" is not a URI`;
  }
  if (parsed.protocol !== 'file:') {
    const scheme = parsed.protocol.replace(/:$/, '');
    return `"${u}" has scheme "${scheme}"; roots must be file:// URIs (the MCP spec requires it: a root is a directory on this machine)`;
  }
  if (!u.startsWith('file://')) return `"${u}" must start with "file://" (e.g. file:///home/me/project)`;
  if (parsed.search || parsed.hash || u.includes('?') || u.includes('#')) return `"${u}" has a query or fragment; a directory has neither`;
  return null;
}

/** Why `name` cannot name a root, or null (empty is fine: no name). */
export function nameProblem(name: string): string | null {
  const n = name.trim();
  if ([...n].length > MAX_NAME_CHARS || /[\u0000-\u001f\u007f-\u009f]/.test(n)) {
    return `at most ${MAX_NAME_CHARS} characters, no control characters`;
  }
  return null;
}

/** The errors of adding `row` to `roots`, by field; empty when it can be added. */
export function addProblems(roots: RootRow[], row: RootRow): { uri?: string; name?: string } {
  const out: { uri?: string; name?: string } = {};
  const uri = uriProblem(row.uri);
  if (uri) out.uri = uri;
  else if (roots.some((r) => r.uri === row.uri.trim())) out.uri = `"${row.uri.trim()}" is listed already`;
  else if (roots.length >= MAX_ROOTS) out.uri = `at most ${MAX_ROOTS} roots can be configured for one server`;
  const name = nameProblem(row.name ?? '');
  if (name) out.name = name;
  return out;
}

/** `row` as it is kept: trimmed, an empty name left out. */
export function tidyRoot(row: RootRow): RootRow {
  const name = (row.name ?? '').trim();
  return name ? { uri: row.uri.trim(), name } : { uri: row.uri.trim() };
}

/** The `file://` URI a typed path or URI becomes: a URI as typed; an absolute path (`/srv/x`,
 *  `C:\\x`) or one from the home directory (`~`, `~/x`, given `home`) with each segment
 *  percent-encoded; anything else an error saying what to type. The browser cannot browse this
 *  machine's directories, so the user types the path and sees the URI before adding it. */
export function rootUriOf(input: string, home: string | null | undefined): { uri: string } | { error: string } {
  const t = input.trim();
  if (!t) return { error: 'a root needs a path, e.g. /home/me/project or ~/project' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t) && !/^[a-z]:[\\/]/i.test(t)) return { uri: t };
  let path = t;
  if (t === '~' || t.startsWith('~/')) {
    if (!home) return { error: 'the backend did not say which directory ~ is; type the whole path' };
    path = home.replace(/\/+$/, '') + t.slice(1);
  }
  // Windows: C:\dir → /C:/dir.
  if (/^[a-z]:[\\/]/i.test(path)) path = '/' + path.replace(/\\/g, '/');
  if (!path.startsWith('/')) return { error: `"${t}" is a relative path; type it from / (or ~/), or a file:// URI` };
  const encoded = path
    .split('/')
    .map((seg) => (/^[a-z]:$/i.test(seg) ? seg : encodeURIComponent(seg)))
    .join('/');
  return { uri: `file://${encoded}` };
}

/** `GET`/`PUT /api/servers/:name/roots` (docs/web-api.md, "Roots"). */
export interface RootsAnswer {
  roots: RootRow[];
  /** The backend user's home directory (what `~` means), when known. */
  home?: string | null;
  /** False: kept for this run only (a read-only catalog). */
  persisted: boolean;
  /** After a PUT: `notifications/roots/list_changed` went to a connected legacy server. */
  listChangedSent?: boolean;
  /** After a PUT that could not be saved in the catalog: why. */
  notSaved?: string | null;
}
