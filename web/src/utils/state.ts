// The SPA's state and the pure reducer that applies backend events to it. The hook in
// src/hooks/useInspector.ts owns a store of this state; everything here is pure and tested.

import type { Interaction, SubscriptionsView, ToolLint } from '../generated/events';
import { appendLive, emptyWindow, type FrameWindow } from './frameWindow';
import { upsertEntry } from './history';
import { closed as closeInteraction, completeWait, opened as openInteraction, waitAfter, type UrlWait } from './interactions';
import type {
  AuthView,
  FrameView,
  HistoryEntry,
  JsonObject,
  LogEvent,
  ProgressEvent,
  ServerInfo,
  ServerRequestEvent,
  ServerView,
  WarningEvent,
  WebEvent,
} from './types';
import type { ToolDef } from './tools';

/** Frames kept in the browser per server; older ones are paged from the backend. */
export const FRAME_WINDOW = 5000;
/** Log lines kept per server. */
export const LOG_LIMIT = 5000;

export interface ServerData {
  info: ServerInfo | null;
  tools: ToolDef[] | null;
  excluded: Record<string, string>;
  /** The quality findings of the last tools/list (the sidebar's badges), null before one. */
  lint: ToolLint | null;
  resources: JsonObject[] | null;
  resourcesCursor: string | null;
  templates: JsonObject[] | null;
  prompts: JsonObject[] | null;
  changed: { tools: boolean; resources: boolean; prompts: boolean };
  updatedResources: Record<string, number>;
  logs: LogEvent[];
  frames: FrameWindow<FrameView>;
  progress: Record<string, ProgressEvent>;
  warnings: WarningEvent[];
  serverRequests: ServerRequestEvent[];
  /** The ids of `notifications/elicitation/complete` received, newest last (the last 50): a
   *  `-32042` card shows its URL done. */
  completedElicitations: string[];
  logLevel: string | null;
  /** The server's Subscriptions panel, from its last `subscriptions` event. */
  subscriptions: SubscriptionsView | null;
  /** The version of the server's last `tasks` event (0: none yet); the Tasks screen reads what
   *  changed when it moves. */
  tasksVersion: number;
  /** Bumped when the protocol era changes: screens remount and lose their outputs. */
  resetCount: number;
}

export interface State {
  servers: ServerView[];
  stream: 'connecting' | 'open' | 'error';
  data: Record<string, ServerData>;
  history: HistoryEntry[];
  /** The last `AuthView` of each server (from `auth` events and `GET …/auth`). */
  auth: Record<string, AuthView>;
  /** What the servers asked that waits for this page, oldest first, every server. */
  interactions: Interaction[];
  /** Accepted URL elicitations waiting for `notifications/elicitation/complete`. */
  urlWaits: UrlWait[];
}

export function emptyServerData(resetCount = 0): ServerData {
  return {
    info: null,
    tools: null,
    excluded: {},
    lint: null,
    resources: null,
    resourcesCursor: null,
    templates: null,
    prompts: null,
    changed: { tools: false, resources: false, prompts: false },
    updatedResources: {},
    logs: [],
    frames: emptyWindow<FrameView>(),
    progress: {},
    warnings: [],
    serverRequests: [],
    completedElicitations: [],
    logLevel: null,
    subscriptions: null,
    tasksVersion: 0,
    resetCount,
  };
}

export function initialState(): State {
  return { servers: [], stream: 'connecting', data: {}, history: [], auth: {}, interactions: [], urlWaits: [] };
}

/** The data of one server (a fresh one when none yet). */
export function serverData(state: State, name: string): ServerData {
  return state.data[name] ?? emptyServerData();
}

/** How many tools, resources and prompts a server's lists hold (undefined: not listed). */
export interface ListCounts {
  tools?: number;
  resources?: number;
  prompts?: number;
}

/** Every server's list counts, for Server Info wherever it is opened. */
export function listCounts(data: Record<string, ServerData>): Record<string, ListCounts> {
  const out: Record<string, ListCounts> = {};
  for (const [name, d] of Object.entries(data)) out[name] = { tools: d.tools?.length, resources: d.resources?.length, prompts: d.prompts?.length };
  return out;
}

/** `state` with one server's data changed. */
export function updateServer(state: State, name: string, fn: (d: ServerData) => ServerData): State {
  return { ...state, data: { ...state.data, [name]: fn(serverData(state, name)) } };
}

function upsertServer(list: ServerView[], s: ServerView): ServerView[] {
  const i = list.findIndex((x) => x.name === s.name);
  if (i < 0) return [...list, s];
  const copy = [...list];
  copy[i] = s;
  return copy;
}

/** `state` with a server's authorization view replaced. `stored` comes only from `GET …/auth`:
 *  an `auth` event without the key keeps the stored grant already shown, until tokens are
 *  loaded (`summary`) or the view says `stored: null` (Forget). */
export function setAuth(state: State, view: AuthView): State {
  const prev = state.auth[view.server];
  const next = !('stored' in view) && !view.summary && prev?.stored ? { ...view, stored: prev.stored } : view;
  return { ...state, auth: { ...state.auth, [view.server]: next } };
}

/** Apply a batch of frames (batched by the hook so 100,000 frames stay cheap). */
export function applyFrames(state: State, frames: FrameView[]): State {
  if (frames.length === 0) return state;
  const byServer = new Map<string, FrameView[]>();
  for (const f of frames) {
    const list = byServer.get(f.server);
    if (list) list.push(f);
    else byServer.set(f.server, [f]);
  }
  let next = state;
  for (const [server, list] of byServer) {
    next = updateServer(next, server, (d) => ({ ...d, frames: appendLive(d.frames, list, FRAME_WINDOW, true) }));
  }
  return next;
}

/** Apply a batch of log events. */
export function applyLogs(state: State, logs: LogEvent[]): State {
  if (logs.length === 0) return state;
  let next = state;
  const byServer = new Map<string, LogEvent[]>();
  for (const l of logs) byServer.set(l.server, [...(byServer.get(l.server) ?? []), l]);
  for (const [server, list] of byServer) {
    next = updateServer(next, server, (d) => {
      const all = d.logs.concat(list);
      return { ...d, logs: all.length > LOG_LIMIT ? all.slice(all.length - LOG_LIMIT) : all };
    });
  }
  return next;
}

/** Apply one event of `GET /api/events` (frames and logs go through the batch functions). */
/** A server's lists forgotten (a new connection lists afresh); its logs, frames and the rest stay. */
function forgetLists(d: ServerData): ServerData {
  const empty = emptyServerData(d.resetCount);
  const { tools, excluded, lint, resources, resourcesCursor, templates, prompts, changed } = empty;
  return { ...d, tools, excluded, lint, resources, resourcesCursor, templates, prompts, changed };
}

export function applyEvent(state: State, e: WebEvent): State {
  switch (e.event) {
    case 'status': {
      const s = e.data;
      let next: State = { ...state, servers: upsertServer(state.servers, s) };
      if (s.status === 'disconnected' || s.status === 'failed') {
        next = updateServer(next, s.name, (d) => ({ ...d, info: null, progress: {} }));
      }
      // A new connection has listed nothing yet: the old lists would have the screens ask about
      // tools it does not know (GET …/apps answered 409) until it lists them again.
      if (s.status === 'connecting') next = updateServer(next, s.name, forgetLists);
      return next;
    }
    case 'catalog': {
      const servers = e.data.servers;
      // Views of servers no longer in the catalog go (a rename starts a new slot).
      const names = new Set(servers.map((s) => s.name));
      const auth = Object.fromEntries(Object.entries(state.auth).filter(([n]) => names.has(n)));
      return { ...state, servers, auth };
    }
    case 'auth':
      return setAuth(state, e.data);
    case 'frame':
      return applyFrames(state, [e.data]);
    case 'log':
      return applyLogs(state, [e.data]);
    case 'progress': {
      const p = e.data;
      return updateServer(state, p.server, (d) => ({ ...d, progress: { ...d.progress, [String(p.requestId)]: p } }));
    }
    case 'notification': {
      const n = e.data;
      if (n.method === 'notifications/elicitation/complete') {
        state = { ...state, urlWaits: completeWait(state.urlWaits, n.server, n.params) };
      }
      return updateServer(state, n.server, (d) => {
        switch (n.method) {
          case 'notifications/tools/list_changed':
            return { ...d, changed: { ...d.changed, tools: true } };
          case 'notifications/resources/list_changed':
            return { ...d, changed: { ...d.changed, resources: true } };
          case 'notifications/prompts/list_changed':
            return { ...d, changed: { ...d.changed, prompts: true } };
          case 'notifications/elicitation/complete': {
            const id = ((n.params ?? {}) as JsonObject).elicitationId;
            return typeof id === 'string' ? { ...d, completedElicitations: [...d.completedElicitations.slice(-49), id] } : d;
          }
          case 'notifications/resources/updated': {
            const uri = String(((n.params ?? {}) as JsonObject).uri ?? '');
            return { ...d, updatedResources: { ...d.updatedResources, [uri]: Date.now() } };
          }
          default:
            return d;
        }
      });
    }
    case 'serverRequest': {
      const r = e.data;
      return updateServer(state, r.server, (d) => ({ ...d, serverRequests: [...d.serverRequests.slice(-99), r] }));
    }
    case 'warning': {
      const w = e.data;
      return updateServer(state, w.server, (d) => ({ ...d, warnings: [...d.warnings.slice(-99), w] }));
    }
    case 'history': {
      const h = e.data;
      // A URL wait whose call failed or was cancelled waits for nothing: the server is done.
      const over = h.status === 'error' || h.status === 'cancelled';
      const urlWaits = over && state.urlWaits.some((w) => w.historyId === h.id) ? state.urlWaits.filter((w) => w.historyId !== h.id) : state.urlWaits;
      return { ...state, history: upsertEntry(state.history, h), urlWaits };
    }
    case 'subscriptions': {
      const v = e.data;
      return updateServer(state, v.server, (d) => (d.subscriptions && d.subscriptions.version >= v.version ? d : { ...d, subscriptions: v }));
    }
    case 'interactionOpened':
      return { ...state, interactions: openInteraction(state.interactions, e.data) };
    case 'tasks': {
      const t = e.data;
      return updateServer(state, t.server, (d) => (d.tasksVersion === t.version ? d : { ...d, tasksVersion: t.version }));
    }
    case 'interactionClosed': {
      const c = e.data;
      const was = state.interactions.find((i) => i.id === c.id);
      return { ...state, interactions: closeInteraction(state.interactions, c.id), urlWaits: waitAfter(state.urlWaits, was, c) };
    }
    case 'reset': {
      const server = e.data.server;
      const prev = serverData(state, server);
      const fresh = emptyServerData(prev.resetCount + 1);
      // The level the user chose is theirs, not the old connection's: the core keeps it too.
      return { ...state, data: { ...state.data, [server]: { ...fresh, info: prev.info, logLevel: prev.logLevel } } };
    }
    default:
      return state;
  }
}
