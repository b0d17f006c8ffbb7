// The stateful core of the SPA: one store fed by the SSE stream, plus every action that talks to
// the backend. Only src/App.tsx uses this hook; components get plain props and callbacks.

import { notifications } from '@mantine/notifications';
import { createElement, useEffect, useMemo, useSyncExternalStore } from 'react';
import { ApiError, api, newRequestId, type HistoryQuery, type RequestAnswer } from '../lib/api';
import type { WebEvent } from '../generated/events';
import { openEvents } from '../lib/events';
import type { About, AppFrameBody, ServerAnswer } from '../utils/apps';
import { authOutcome } from '../utils/auth';
import { appendNewer, prependOlder } from '../utils/frameWindow';
import { fromSnapshot, type InteractionAnswer } from '../utils/interactions';
import { lintOf } from '../components/elements/QualityBadge/quality';
import { newer, subscriptionsApi, withUri } from '../components/groups/SubscriptionsPanel/subscriptions';
import { ErrorToastBody } from '../components/elements/TroubleshootingLink/TroubleshootingLink';
import { excludedMap, type ToolDef } from '../utils/tools';
import { eraAdviceForWeb } from '../utils/format';
import {
  FRAME_WINDOW,
  applyEvent,
  applyFrames,
  applyLogs,
  initialState,
  serverData,
  setAuth,
  updateServer,
  type State,
} from '../utils/state';
import type {
  AuthView,
  CallHandle,
  CallOutcome,
  CatalogEntry,
  EraPreference,
  FieldError,
  FormField,
  FrameView,
  Json,
  JsonObject,
  LogEvent,
  SavedRequest,
} from '../utils/types';

/** A tiny external store: immutable state, batched notifications. */
class Store {
  state: State = initialState();
  private listeners = new Set<() => void>();
  private pendingFrames: FrameView[] = [];
  private pendingLogs: LogEvent[] = [];
  private pendingEvents: WebEvent[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | null = null;

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };
  get = () => this.state;

  set(fn: (s: State) => State) {
    const next = fn(this.state);
    if (next !== this.state) {
      this.state = next;
      for (const l of this.listeners) l();
    }
  }

  /** Frames and logs arrive fast: apply them in batches every 50 ms. */
  queueFrame(f: FrameView) {
    this.pendingFrames.push(f);
    this.scheduleFlush();
  }
  queueLog(l: LogEvent) {
    this.pendingLogs.push(l);
    this.scheduleFlush();
  }
  /** So do a hostile server's questions (1,000 at once, each opened, closed, answered and
   *  recorded): one render per event froze the page for minutes; they are applied in order,
   *  with the frames, in one render every 50 ms. */
  queueEvent(e: WebEvent) {
    this.pendingEvents.push(e);
    this.scheduleFlush();
  }
  private scheduleFlush() {
    if (this.flushTimer !== null) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      const frames = this.pendingFrames;
      const logs = this.pendingLogs;
      const events = this.pendingEvents;
      this.pendingFrames = [];
      this.pendingLogs = [];
      this.pendingEvents = [];
      this.set((s) => events.reduce(applyEvent, applyLogs(applyFrames(s, frames), logs)));
    }, 50);
  }
}

const store = new Store();
/** The events that come in bursts and have no side effect but their state: batched. */
const BATCHED = new Set<WebEvent['event']>(['interactionOpened', 'interactionClosed', 'serverRequest', 'history', 'progress', 'notification', 'tasks']);
/** While `GET /api/interactions` is in flight: the ids opened and closed by events meanwhile. */
let interactionsSince: { opened: Set<number>; closed: Set<number> } | null = null;
/** `GET /api/about`, asked once. */
let aboutOnce: Promise<About> | null = null;
/** Servers whose login this page saw waiting for a person and whose outcome has not come yet. */
const awaitingLogin = new Set<string>();

function errorMessage(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

/** A request's answer or error body, never a rejection. */
async function outcome(p: Promise<RequestAnswer>): Promise<CallOutcome> {
  try {
    const r = await p;
    return { ok: true, historyId: r.historyId, result: r.result };
  } catch (e) {
    if (e instanceof ApiError) return { ok: false, error: e.body };
    return { ok: false, error: { code: 'unreachable', message: errorMessage(e) } };
  }
}

function toastError(title: string, e: unknown) {
  // An error with a code links its troubleshooting guide (003's "View Documentation →").
  const text = eraAdviceForWeb(errorMessage(e));
  const message = e instanceof ApiError && e.code ? createElement(ErrorToastBody, { message: text, code: e.code }) : text;
  notifications.show({ color: 'red', title, message, autoClose: 8000 });
}


/** Every action of the SPA. Stable across renders. */
function makeActions() {
  const formCache = new Map<string, Promise<FormField>>();

  const refreshServers = async () => {
    try {
      const { servers } = await api.servers();
      store.set((s) => ({ ...s, servers }));
    } catch (e) {
      toastError('Could not load the servers', e);
    }
  };

  const actions = {
    refreshServers,

    async connect(name: string) {
      try {
        const info = await api.connect(name);
        store.set((s) => updateServer(s, name, (d) => ({ ...d, info })));
        notifications.show({ color: 'green', title: `Connected to ${name}`, message: `${info.protocolVersion} (${info.era})` });
        return true;
      } catch (e) {
        toastError(`Could not connect to ${name}`, e);
        await refreshServers();
        return false;
      }
    },
    async disconnect(name: string) {
      try {
        await api.disconnect(name);
      } catch (e) {
        toastError(`Could not disconnect ${name}`, e);
      }
      await refreshServers();
    },
    async info(name: string) {
      const info = await api.info(name);
      store.set((s) => updateServer(s, name, (d) => ({ ...d, info })));
      return info;
    },
    async setProtocolEra(name: string, era: EraPreference) {
      try {
        await api.setProtocolEra(name, era);
        await refreshServers();
        try {
          await actions.info(name);
        } catch {
          /* not connected (yet) */
        }
      } catch (e) {
        toastError('Could not change the protocol', e);
      }
    },
    async addServer(name: string, entry: CatalogEntry) {
      const v = await api.addServer(name, entry);
      await refreshServers();
      return v;
    },
    async updateServer(oldName: string, name: string, entry: CatalogEntry) {
      const v = await api.updateServer(oldName, name, entry);
      await refreshServers();
      return v;
    },
    async removeServer(name: string) {
      try {
        await api.removeServer(name);
        notifications.show({ title: 'Removed', message: name });
      } catch (e) {
        toastError(`Could not remove ${name}`, e);
      }
      await refreshServers();
    },
    async importConfig(text: string) {
      const r = await api.importConfig(text);
      await refreshServers();
      return r;
    },
    importRegistry: (text: string) => api.importRegistry(text),
    async addFromRegistry(text: string, choice: { package?: number; remote?: number }, name: string, env: Record<string, string>) {
      const v = await api.addFromRegistry(text, choice, name, env);
      await refreshServers();
      return v;
    },

    // --- lists ---
    async listTools(name: string) {
      try {
        const r = await api.list(name, 'tools/list', 'tools', { allPages: true });
        const tools = ((r.result.tools ?? []) as unknown as ToolDef[]) ?? [];
        const excluded = excludedMap(r.excludedTools);
        const lint = lintOf((r as { lint?: unknown }).lint);
        store.set((s) => updateServer(s, name, (d) => ({ ...d, tools, excluded, lint, changed: { ...d.changed, tools: false } })));
      } catch (e) {
        store.set((s) => updateServer(s, name, (d) => ({ ...d, tools: d.tools ?? [] })));
        toastError('tools/list failed', e);
      }
    },
    async listResources(name: string, more = false) {
      try {
        const cursor = more ? serverData(store.get(), name).resourcesCursor ?? undefined : undefined;
        const r = await api.list(name, 'resources/list', 'resources', more ? { cursor } : { cursor: undefined, allPages: false });
        const page = (r.result.resources ?? []) as JsonObject[];
        const next = typeof r.result.nextCursor === 'string' ? r.result.nextCursor : null;
        store.set((s) =>
          updateServer(s, name, (d) => ({
            ...d,
            resources: more ? [...(d.resources ?? []), ...page] : page,
            resourcesCursor: next,
            changed: { ...d.changed, resources: false },
          })),
        );
      } catch (e) {
        store.set((s) => updateServer(s, name, (d) => ({ ...d, resources: d.resources ?? [] })));
        toastError('resources/list failed', e);
      }
    },
    async listTemplates(name: string) {
      try {
        const r = await api.list(name, 'resources/templates/list', 'resourceTemplates', { allPages: true });
        const templates = (r.result.resourceTemplates ?? []) as JsonObject[];
        store.set((s) => updateServer(s, name, (d) => ({ ...d, templates })));
      } catch (e) {
        store.set((s) => updateServer(s, name, (d) => ({ ...d, templates: d.templates ?? [] })));
        toastError('resources/templates/list failed', e);
      }
    },
    async listPrompts(name: string) {
      try {
        const r = await api.list(name, 'prompts/list', 'prompts', { allPages: true });
        const prompts = (r.result.prompts ?? []) as JsonObject[];
        store.set((s) => updateServer(s, name, (d) => ({ ...d, prompts, changed: { ...d.changed, prompts: false } })));
      } catch (e) {
        store.set((s) => updateServer(s, name, (d) => ({ ...d, prompts: d.prompts ?? [] })));
        toastError('prompts/list failed', e);
      }
    },

    // --- requests ---
    /** Start a request that reports progress and can be cancelled. */
    call(name: string, method: string, params: Json, meta?: JsonObject): CallHandle {
      const requestId = newRequestId();
      const done = outcome(api.request(name, method, { params, requestId, progress: true, meta }));
      return { requestId, done };
    },
    request: (name: string, method: string, params: Json, meta?: JsonObject) => outcome(api.request(name, method, { params, meta })),
    async cancel(requestId: string) {
      try {
        return (await api.cancel(requestId)).cancelled;
      } catch (e) {
        toastError('Cancel failed', e);
        return false;
      }
    },
    async complete(name: string, ref: JsonObject, argument: string, value: string, context: Record<string, string>) {
      // Only a server that declares `completions` is asked: another answers every keystroke
      // with -32601, each a failed request in History and Traffic.
      const caps = serverData(store.get(), name).info?.capabilities;
      if (caps?.completions === undefined || caps.completions === null) return [];
      try {
        const params: JsonObject = { ref, argument: { name: argument, value } };
        if (Object.keys(context).length > 0) params.context = { arguments: context };
        const r = await api.request(name, 'completion/complete', { params });
        const values = (((r.result ?? {}) as JsonObject).completion as JsonObject | undefined)?.values;
        return Array.isArray(values) ? values.map(String) : [];
      } catch {
        return [];
      }
    },
    /** Subscribe to `uri` (or not) the way the connection's era does it, through the
     *  Subscriptions panel's calls, so the viewer's button and the panel are one state:
     *  `resources/subscribe` on 2025-11-25, the watch filter of `subscriptions/listen` on
     *  2026-07-28 (which has no `resources/subscribe`). */
    async subscribeResource(name: string, uri: string, on: boolean): Promise<CallOutcome> {
      try {
        const view = serverData(store.get(), name).subscriptions ?? (await subscriptionsApi.get(name));
        const next =
          view.era === 'modern'
            ? await subscriptionsApi.setFilter(name, withUri(view.desired, uri, on))
            : (await subscriptionsApi.subscribe(name, uri, on)).subscriptions;
        store.set((s) => updateServer(s, name, (d) => ({ ...d, subscriptions: newer(d.subscriptions, next) })));
        return { ok: true, historyId: 0, result: {} };
      } catch (e) {
        return { ok: false, error: { code: 'subscribe', message: errorMessage(e) } };
      }
    },
    /** Set the log level; `quiet` for the one the page applies by itself (no toast). */
    async setLogLevel(name: string, level: string, quiet = false) {
      try {
        await api.setLogLevel(name, level);
        store.set((s) => updateServer(s, name, (d) => ({ ...d, logLevel: level })));
        if (!quiet) notifications.show({ color: 'blue', title: 'Log level', message: `set to ${level}` });
      } catch (e) {
        toastError('Could not set the log level', e);
      }
    },
    clearLogs(name: string) {
      store.set((s) => updateServer(s, name, (d) => ({ ...d, logs: [] })));
    },
    /** The server does not advertise this capability: empty lists, nothing requested. */
    markUnoffered(name: string, what: 'tools' | 'resources' | 'prompts') {
      store.set((s) =>
        updateServer(s, name, (d) =>
          what === 'tools'
            ? { ...d, tools: [] }
            : what === 'resources'
              ? { ...d, resources: [], templates: [], resourcesCursor: null }
              : { ...d, prompts: [] },
        ),
      );
    },
    clearChanged(name: string, what: 'tools' | 'resources' | 'prompts') {
      store.set((s) => updateServer(s, name, (d) => ({ ...d, changed: { ...d.changed, [what]: false } })));
    },
    formModel(schema: Json): Promise<FormField> {
      const key = JSON.stringify(schema);
      let p = formCache.get(key);
      if (!p) {
        p = api.form(schema);
        p.catch(() => formCache.delete(key));
        formCache.set(key, p);
      }
      return p;
    },
    async checkOutput(historyId: number, schema: Json): Promise<{ errors: FieldError[]; unusable?: string }> {
      try {
        return await api.checkOutput(historyId, schema);
      } catch (e) {
        return { errors: [], unusable: errorMessage(e) };
      }
    },
    /** Judge arguments against the tool as the page shows it: after a `list_changed` the core
     *  forgets its list until the next `tools/list`, while the old one stays on screen. */
    validateTool(name: string, tool: string, args: Json) {
      const shown = serverData(store.get(), name).tools?.find((t) => t.name === tool);
      if (shown) return api.validate(shown.inputSchema ?? {}, args);
      return api.validateTool(name, tool, args);
    },

    // --- history and saved requests ---
    history: (q: HistoryQuery) => api.history(q),
    historyEntry: (id: number) => api.historyEntry(id),
    async pin(id: number, label: string) {
      const e = await api.pin(id, label);
      store.set((s) => ({ ...s, history: s.history.map((h) => (h.id === id ? { ...h, ...e } : h)) }));
      return e;
    },
    async unpin(id: number) {
      const e = await api.unpin(id);
      store.set((s) => ({ ...s, history: s.history.map((h) => (h.id === id ? { ...h, ...e } : h)) }));
      return e;
    },
    async clearHistory(server?: string) {
      const r = await api.clearHistory(server);
      store.set((s) => ({ ...s, history: s.history.filter((h) => h.pinned) }));
      notifications.show({ title: 'History cleared', message: `${r.deleted} entries deleted (pinned ones kept)` });
      return r;
    },
    historyExportUrl: api.historyExportUrl,
    historyResultUrl: api.historyResultUrl,
    async saved(): Promise<SavedRequest[]> {
      const r = await api.saved();
      return Array.isArray(r) ? r : r.saved ?? [];
    },
    save: (r: { name: string; server: string; method: string; params: Json }) => api.save(r),
    deleteSaved: (id: number | string) => api.deleteSaved(id),

    // --- traffic ---
    async olderFrames(name: string, source?: string) {
      const w = serverData(store.get(), name).frames;
      const before = w.items[0]?.seq;
      if (before === undefined) return;
      const { frames } = await api.frames(name, { before, limit: 500, source });
      store.set((s) => updateServer(s, name, (d) => ({ ...d, frames: prependOlder(d.frames, frames, FRAME_WINDOW, frames.length >= 500) })));
    },
    async newerFrames(name: string, source?: string) {
      const w = serverData(store.get(), name).frames;
      const after = w.items[w.items.length - 1]?.seq;
      const { frames } = await api.frames(name, { after, limit: 500, source });
      store.set((s) => updateServer(s, name, (d) => ({ ...d, frames: appendNewer(d.frames, frames, FRAME_WINDOW, frames.length >= 500) })));
    },
    async loadFrames(name: string) {
      try {
        const { frames } = await api.frames(name, { limit: 500 });
        store.set((s) =>
          updateServer(s, name, (d) => ({
            ...d,
            frames: prependOlder(d.frames, frames, FRAME_WINDOW, frames.length >= 500),
          })),
        );
      } catch {
        /* not connected yet: live frames will come */
      }
    },
    frameBodyUrl: api.frameBodyUrl,

    // --- what the servers ask (pending interactions) ---
    /** Every interaction still waiting (at load and after a resync: events may have been lost). */
    async loadInteractions() {
      const since = { opened: new Set<number>(), closed: new Set<number>() };
      interactionsSince = since;
      try {
        const { interactions } = await api.interactions();
        store.set((s) => ({ ...s, interactions: fromSnapshot(interactions, s.interactions, since.opened, since.closed) }));
      } catch (e) {
        toastError('Could not load what the servers are asking', e);
      } finally {
        if (interactionsSince === since) interactionsSince = null;
      }
    },
    /** Answer interaction `id`; its `interactionClosed` event takes it off the list. */
    async answerInteraction(id: number, answer: InteractionAnswer): Promise<boolean> {
      try {
        await api.answerInteraction(id, answer);
        return true;
      } catch (e) {
        if (e instanceof ApiError && e.code === 'not_found') {
          // It closed meanwhile (timed out, abandoned, answered in another tab): say so, drop it.
          store.set((s) => ({ ...s, interactions: s.interactions.filter((i) => i.id !== id) }));
          notifications.show({ color: 'yellow', title: 'No longer waiting', message: e.message });
        } else {
          toastError('Could not answer the server', e);
        }
        return false;
      }
    },

    // --- MCP Apps ---
    /** `GET /api/about` once (the sandbox URL and the version do not change while the page lives). */
    about(): Promise<About> {
      aboutOnce ??= api.about().catch((e: unknown) => {
        aboutOnce = null;
        throw e;
      });
      return aboutOnce;
    },
    apps: (name: string) => api.apps(name),
    appResource: (name: string, tool: string) => api.appResource(name, tool),
    /** A request an app makes (`origin: {app}`): the answer, or the refusal with its code. */
    async appRequest(name: string, app: string, method: string, params: Json): Promise<ServerAnswer> {
      try {
        const r = await api.request(name, method, { params, origin: { app } });
        return { ok: true, result: r.result, historyId: r.historyId };
      } catch (e) {
        if (e instanceof ApiError) return { ok: false, code: e.code, message: e.message, historyId: e.body.historyId };
        return { ok: false, code: 'unreachable', message: errorMessage(e) };
      }
    },
    /** The call that opens an app, as the app itself when the tool is app-only. */
    launchApp(name: string, tool: string, args: Json, asApp: boolean): CallHandle {
      const requestId = newRequestId();
      const done = outcome(api.request(name, 'tools/call', { params: { name: tool, arguments: args }, requestId, progress: true, ...(asApp ? { origin: { app: tool } } : {}) }));
      return { requestId, done };
    },
    appFrame: (name: string, body: AppFrameBody) => api.appFrame(name, body),

    // --- authorization (OAuth) ---
    /** The server's authorization view, stored; throws when the backend refuses. */
    async authView(name: string): Promise<AuthView> {
      const v = await api.auth(name);
      store.set((s) => setAuth(s, v));
      // A login that started before this page loaded: its outcome gets a toast too.
      if (v.pending) awaitingLogin.add(v.server);
      return v;
    },
    /** Load the views of HTTP/SSE servers that are (being) connected: a login may be waiting. */
    async loadAuth() {
      const live = store.get().servers.filter((s) => s.transport !== 'stdio' && (s.status === 'connected' || s.status === 'connecting'));
      await Promise.all(live.map((s) => actions.authView(s.name).catch(() => null)));
    },
    authToken: (name: string) => api.authToken(name),
    /** A new login with the granted scopes plus `scopes`; the `auth` events show and end it. */
    async reauthorize(name: string, scopes: string[]): Promise<AuthView> {
      try {
        const v = await api.reauthorize(name, scopes);
        store.set((s) => setAuth(s, v));
        return v;
      } catch (e) {
        // A failed or cancelled login already has its toast (the `auth` event).
        if (!(e instanceof ApiError && e.code === 'auth_required')) toastError(`Could not re-authorize ${name}`, e);
        throw e;
      }
    },
    async forgetAuth(name: string): Promise<AuthView> {
      const v = await api.forgetAuth(name);
      store.set((s) => setAuth(s, v));
      notifications.show({ title: 'Tokens forgotten', message: `${name}: the next request logs in again` });
      return v;
    },
    async cancelAuth(name: string): Promise<void> {
      try {
        await api.cancelAuth(name);
      } catch (e) {
        toastError(`Could not cancel the login of ${name}`, e);
      }
    },
  };
  return actions;
}

export type Actions = ReturnType<typeof makeActions>;

const actionsSingleton = makeActions();


/** Subscribe to the store and the event stream; returns the state and the actions. */
export function useInspector(): { state: State; actions: Actions } {
  const state = useSyncExternalStore(store.subscribe, store.get, store.get);
  useEffect(() => {
    void actionsSingleton.refreshServers().then(() => actionsSingleton.loadAuth());
    void actionsSingleton.loadInteractions();
    const close = openEvents(
      (e) => {
        if (e.event === 'interactionOpened') interactionsSince?.opened.add(e.data.id);
        if (e.event === 'interactionClosed') interactionsSince?.closed.add(e.data.id);
        if (e.event === 'frame') store.queueFrame(e.data);
        else if (e.event === 'log') store.queueLog(e.data);
        else if (BATCHED.has(e.event)) store.queueEvent(e);
        else if (e.event === 'auth') {
          const v = e.data;
          store.set((s) => applyEvent(s, e));
          const o = authOutcome(awaitingLogin.has(v.server), v);
          if (o.awaiting) awaitingLogin.add(v.server);
          else awaitingLogin.delete(v.server);
          if (o.toast) notifications.show({ ...o.toast, autoClose: o.toast.color === 'red' ? 10_000 : 6000 });
        } else {
          store.set((s) => applyEvent(s, e));
          if (e.event === 'resync') {
            // Events were lost: refetch what the REST calls can give back.
            void actionsSingleton.refreshServers().then(() => actionsSingleton.loadAuth());
            void actionsSingleton.loadInteractions();
            for (const server of Object.keys(store.get().data)) void actionsSingleton.loadFrames(server);
          }
          if (e.event === 'warning') {
            notifications.show({ color: 'yellow', title: `Warning from ${e.data.server}`, message: e.data.message });
          }
        }
      },
      (st) => store.set((s) => (s.stream === st ? s : { ...s, stream: st })),
    );
    return close;
  }, []);
  const actions = useMemo(() => actionsSingleton, []);
  return { state, actions };
}
