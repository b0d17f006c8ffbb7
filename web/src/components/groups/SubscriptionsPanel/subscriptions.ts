// The Subscriptions panel's logic, pure and tested: the labels 000 gives each stream status, the
// desired filter as the checkboxes edit it, the URI rows (the server's resources plus anything the
// panel tracks), which of two views is newer, and the panel's REST calls (docs/web-api.md,
// "Subscriptions"). The stream itself lives in the backend core; the page only asks and shows.
import type { Filter, StreamStatus, SubscriptionsView, TransitionKind, UriView } from '../../../generated/events';
import type { JsonObject } from '../../../utils/types';

/** The status words of 000's Subscriptions panel, exactly. */
export const STATUS_LABEL: Record<StreamStatus, string> = {
  opening: 'Opening',
  active: 'Active',
  closedByServer: 'Closed by server (graceful)',
  connectionLost: 'Connection lost (remote close)',
  cancelledLocally: 'Cancelled locally',
  error: 'Error',
};

export const STATUS_COLOR: Record<StreamStatus, string> = {
  opening: 'blue',
  active: 'green',
  closedByServer: 'gray',
  connectionLost: 'orange',
  cancelledLocally: 'gray',
  error: 'red',
};

export const KIND_LABEL: Record<TransitionKind, string> = {
  opening: 'Opening',
  active: 'Active',
  closedByServer: 'Closed by server (graceful)',
  connectionLost: 'Connection lost (remote close)',
  cancelledLocally: 'Cancelled locally',
  error: 'Error',
  subscribed: 'Subscribed',
  unsubscribed: 'Unsubscribed',
  updated: 'Updated',
  rejected: 'Rejected',
};

/** The list-changed kinds of a filter, with the notification each stands for. */
export const KINDS = [
  { key: 'toolsListChanged', label: 'tools/list_changed' },
  { key: 'promptsListChanged', label: 'prompts/list_changed' },
  { key: 'resourcesListChanged', label: 'resources/list_changed' },
] as const;

export type KindKey = (typeof KINDS)[number]['key'];

export function emptyFilter(): Filter {
  return { toolsListChanged: false, promptsListChanged: false, resourcesListChanged: false, resourceSubscriptions: [] };
}

/** `f` with one list-changed kind switched. */
export function withKind(f: Filter, key: KindKey, on: boolean): Filter {
  return { ...f, [key]: on };
}

/** `f` watching `uri` (or not), in the order the URIs were chosen. */
export function withUri(f: Filter, uri: string, on: boolean): Filter {
  const rest = f.resourceSubscriptions.filter((u) => u !== uri);
  return { ...f, resourceSubscriptions: on ? [...rest, uri] : rest };
}

/** A filter in the protocol's words, for the requested / acknowledged columns. */
export function filterText(f: Filter | null): string {
  if (!f) return '—';
  const parts: string[] = KINDS.filter((k) => f[k.key]).map((k) => k.label);
  for (const u of f.resourceSubscriptions) parts.push(`resources/updated ${u}`);
  return parts.length ? parts.join(', ') : 'nothing';
}

export function isOpen(s: StreamStatus | undefined): boolean {
  return s === 'opening' || s === 'active';
}

/** The newer of two views of the same server (events and REST answers race). */
export function newer(a: SubscriptionsView | null, b: SubscriptionsView | null): SubscriptionsView | null {
  if (!a) return b;
  if (!b) return a;
  if (a.server !== b.server) return b;
  return b.version >= a.version ? b : a;
}

export interface UriRow {
  uri: string;
  name: string;
  state: UriView | null;
  /** Modern: in the desired filter. */
  watched: boolean;
}

/** One row per resource the server listed, then URIs the panel tracks that the list lacks. */
export function uriRows(resources: JsonObject[] | null, view: SubscriptionsView | null): UriRow[] {
  const byUri = new Map((view?.uris ?? []).map((u) => [u.uri, u]));
  const desired = new Set(view?.desired.resourceSubscriptions ?? []);
  const rows: UriRow[] = [];
  const seen = new Set<string>();
  for (const r of resources ?? []) {
    const uri = typeof r.uri === 'string' ? r.uri : null;
    if (!uri || seen.has(uri)) continue;
    seen.add(uri);
    rows.push({ uri, name: String(r.title ?? r.name ?? uri), state: byUri.get(uri) ?? null, watched: desired.has(uri) });
  }
  for (const uri of [...desired, ...byUri.keys()]) {
    if (seen.has(uri)) continue;
    seen.add(uri);
    rows.push({ uri, name: uri, state: byUri.get(uri) ?? null, watched: desired.has(uri) });
  }
  return rows;
}

/** Whether a server's capabilities declare `resources.subscribe`: only then is Subscribe
 *  offered (a server without it refuses `resources/subscribe`, and the core refuses first).
 *  Unknown capabilities (not connected) offer nothing either. */
export function declaresSubscribe(capabilities: JsonObject | null | undefined): boolean {
  const resources = capabilities?.resources;
  return typeof resources === 'object' && resources !== null && !Array.isArray(resources) && (resources as JsonObject).subscribe === true;
}

/** The URIs a resource viewer shows as subscribed: legacy, those the server said yes to;
 *  modern, those the desired filter watches (the stream is replaced to match). */
export function subscribedUris(view: SubscriptionsView | null): string[] {
  if (!view) return [];
  if (view.era === 'modern') return view.desired.resourceSubscriptions;
  return view.uris.filter((u) => u.subscribed).map((u) => u.uri);
}

/** Time of day with milliseconds, from µs since the epoch (transitions come fast). */
export function timeOfDay(us: number): string {
  const d = new Date(us / 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** The error of an answer, in the API's shape, as text. */
async function failure(res: Response): Promise<Error> {
  try {
    const body = (await res.json()) as { error?: { message?: string } };
    return new Error(body.error?.message ?? `HTTP ${res.status}`);
  } catch {
    return new Error(`HTTP ${res.status}`);
  }
}

async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin' };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  const res = await fetch(path, init);
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

const base = (server: string) => `/api/servers/${encodeURIComponent(server)}/subscriptions`;

/** The panel's REST calls (each answers the panel, or the legacy call's answer with it). */
export const subscriptionsApi = {
  get: (server: string) => send<SubscriptionsView>('GET', base(server)),
  setFilter: (server: string, f: Filter) => send<SubscriptionsView>('PUT', `${base(server)}/filter`, f),
  listen: (server: string) => send<SubscriptionsView>('POST', `${base(server)}/listen`, {}),
  cancel: (server: string) => send<SubscriptionsView>('POST', `${base(server)}/cancel`, {}),
  subscribe: (server: string, uri: string, on: boolean) =>
    send<{ historyId: number; subscriptions: SubscriptionsView }>('POST', `${base(server)}/${on ? 'subscribe' : 'unsubscribe'}`, { uri }),
  seen: (server: string, uri: string) => send<SubscriptionsView>('POST', `${base(server)}/seen`, { uri }),
};
