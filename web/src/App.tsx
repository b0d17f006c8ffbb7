// The top container: the only component that uses the stateful hook. It owns navigation state
// (active server, tab, replay pre-fills) and binds the view's callbacks to the API actions.

import { notifications } from '@mantine/notifications';
import { useEffect, useMemo, useRef, useState } from 'react';
import { DeepLinkModal, type DeepLinkRequest } from './components/groups/DeepLinkModal/DeepLinkModal';
import { InspectorView, type InFlight, type InspectorCallbacks } from './components/views/InspectorView/InspectorView';
import { useInspector } from './hooks/useInspector';
import { parseDeepLink } from './utils/apps';
import { replayArgs, replayTab } from './utils/history';
import { DEFAULT_LOG_LEVEL } from './utils/logs';
import { listCounts, serverData } from './utils/state';
import type { HistoryEntry, Json, JsonObject, Prefill, ServerInfo, TabId } from './utils/types';

export function App() {
  const { state, actions } = useInspector();
  const [active, setActive] = useState<string | null>(null);
  const [tab, setTab] = useState<TabId>('tools');
  const [prefill, setPrefill] = useState<Partial<Record<TabId, Prefill>>>({});
  const [historyFocus, setHistoryFocus] = useState<number | null>(null);
  // The Logs request filter belongs to the server whose request it names (never shown on another).
  const [logRequest, setLogRequest] = useState<{ server: string; id: number } | null>(null);
  const [infoOpen, setInfoOpen] = useState(false);
  // The calls started from a screen, until they end: the questions they cause are drawn under them.
  const [inflight, setInflight] = useState<Record<string, InFlight>>({});
  const nonce = useRef(0);
  const activeRef = useRef<string | null>(null);
  activeRef.current = active;
  // A deep link (?server=&openApp=&appArgs=, kept across the launch URL's redirect): asked about once.
  const deepLink = useRef(typeof location === 'undefined' ? null : parseDeepLink(location.search));
  const [appOpen, setAppOpen] = useState<{ nonce: number; tool: string; args: JsonObject } | null>(null);
  const [askLink, setAskLink] = useState<DeepLinkRequest | null>(null);

  const activeServer = active ? state.servers.find((s) => s.name === active) : undefined;
  const data = active ? serverData(state, active) : null;

  // Load the lists once per connection (a reconnect is a new one: the core forgot the old
  // tools, and the server may have changed), and again after a protocol change resets them.
  const loaded = useRef<string>('');
  useEffect(() => {
    if (!active || !activeServer || activeServer.status !== 'connected' || !data) return;
    const key = `${active}:${activeServer.connection}:${data.resetCount}:${activeServer.protocolVersion ?? ''}`;
    if (loaded.current === key) return;
    loaded.current = key;
    const chosen = data.logLevel;
    void actions.loadFrames(active);
    // List only what the server advertises (a missing capability shows as "not offered").
    void actions
      .info(active)
      .catch(() => null)
      .then((info) => {
        const caps = info?.capabilities ?? null;
        // A 2026-07-28 server sends no log at all until a request names a level: apply the one
        // the Logs selector shows (debug), so what it reads is what is in effect. A level the
        // user chose stays (the core sends it with every modern request); a new legacy session
        // has not heard it yet, so it is told again.
        if (info?.era === 'modern' && chosen === null) void actions.setLogLevel(active, DEFAULT_LOG_LEVEL, true);
        if (info?.era === 'legacy' && chosen !== null && caps?.logging) void actions.setLogLevel(active, chosen, true);
        const offers = (c: string) => !caps || (caps[c] !== undefined && caps[c] !== null);
        if (offers('tools')) void actions.listTools(active);
        else actions.markUnoffered(active, 'tools');
        if (offers('resources')) {
          void actions.listResources(active);
          void actions.listTemplates(active);
        } else actions.markUnoffered(active, 'resources');
        if (offers('prompts')) void actions.listPrompts(active);
        else actions.markUnoffered(active, 'prompts');
      });
  }, [active, activeServer, data, actions]);

  useEffect(() => {
    const link = deepLink.current;
    if (!link || state.servers.length === 0) return;
    deepLink.current = null;
    const q = new URLSearchParams(location.search);
    for (const k of ['server', 'openApp', 'appArgs']) q.delete(k);
    history.replaceState(null, '', location.pathname + (q.size > 0 ? `?${q}` : ''));
    const s = state.servers.find((x) => x.name === link.server);
    if (!s) {
      notifications.show({ color: 'red', title: 'Deep link', message: `no server named ${link.server} in the catalog` });
      return;
    }
    if (link.error) notifications.show({ color: 'red', title: 'Deep link', message: `${link.error}: the app opens without arguments` });
    // Never acted on by itself: any page can navigate here with a link (DeepLinkModal).
    setAskLink({ server: s.name, target: s.target, connected: s.status === 'connected', openApp: link.openApp, args: link.args });
  }, [state.servers, actions]);

  // The deep link the person confirmed: connect (unless connected) and open the app.
  const followLink = (link: DeepLinkRequest) => {
    const go = () => {
      setActive(link.server);
      setTab(link.openApp ? 'apps' : 'tools');
      if (link.openApp) setAppOpen({ nonce: Date.now(), tool: link.openApp, args: link.args });
    };
    const s = state.servers.find((x) => x.name === link.server);
    if (s?.status === 'connected') go();
    else void actions.connect(link.server).then((ok) => ok && go());
  };

  // A removed server cannot stay active.
  if (active && state.servers.length > 0 && !activeServer) setActive(null);

  const infos = useMemo(() => {
    const out: Record<string, ServerInfo | null> = {};
    for (const [name, d] of Object.entries(state.data)) out[name] = d.info;
    return out;
  }, [state.data]);
  const counts = useMemo(() => listCounts(state.data), [state.data]);

  const cb: InspectorCallbacks = useMemo(() => {
    const cur = () => activeRef.current ?? '';
    // A request started from a screen that may ask questions (tools/call, prompts/get,
    // resources/read): its view request id ties its questions to the screen (inline queue).
    const track = (tab: TabId, method: string, params: Json, meta?: JsonObject) => {
      const server = cur();
      const h = actions.call(server, method, params, meta);
      setInflight((m) => ({ ...m, [h.requestId]: { server, tab } }));
      void h.done.finally(() =>
        setInflight((m) => {
          const rest = { ...m };
          delete rest[h.requestId];
          return rest;
        }),
      );
      return h;
    };
    return {
      selectServer: (name) => {
        setActive(name);
        if (name) setTab('tools');
      },
      setTab,
      showInfo: (open) => {
        if (open && activeRef.current) void actions.info(activeRef.current).catch(() => undefined);
        setInfoOpen(open);
      },
      connect: (name) => {
        void actions.connect(name).then((ok) => {
          if (ok) {
            setActive(name);
            setTab('tools');
          }
        });
      },
      disconnect: (name) => {
        void actions.disconnect(name);
        if (activeRef.current === name) setActive(null);
      },
      loadInfo: (name) => void actions.info(name).catch(() => undefined),
      setProtocol: (name, era) => void actions.setProtocolEra(name, era),
      addServer: actions.addServer,
      updateServer: actions.updateServer,
      removeServer: (name) => void actions.removeServer(name),
      importConfig: actions.importConfig,
      importRegistry: actions.importRegistry,
      addFromRegistry: actions.addFromRegistry,
      refresh: (what) => {
        const n = cur();
        if (what === 'tools') void actions.listTools(n);
        if (what === 'resources') {
          void actions.listResources(n);
          void actions.listTemplates(n);
        }
        if (what === 'prompts') void actions.listPrompts(n);
      },
      moreResources: () => void actions.listResources(cur(), true),
      formModel: actions.formModel,
      validateTool: (tool, args) => actions.validateTool(cur(), tool, args),
      checkOutput: actions.checkOutput,
      callTool: (tool, args, meta) => track('tools', 'tools/call', { name: tool, arguments: args }, meta),
      cancel: actions.cancel,
      read: (uri) => track('resources', 'resources/read', { uri }).done,
      subscribe: (uri, on) => actions.subscribeResource(cur(), uri, on),
      getPrompt: (name, args) => track('prompts', 'prompts/get', { name, arguments: args }).done,
      complete: (ref, argument, value, context) => actions.complete(cur(), ref, argument, value, context),
      openResource: (uri) => {
        nonce.current += 1;
        setPrefill((p) => ({ ...p, resources: { nonce: nonce.current, uri } }));
        setTab('resources');
      },
      showInHistory: (id) => {
        setHistoryFocus(id);
        setTab('history');
      },
      showLogsOf: (id) => {
        setLogRequest(id === null ? null : { server: cur(), id });
        if (id !== null) setTab('logs');
      },
      setLogLevel: (level) => void actions.setLogLevel(cur(), level),
      clearLogs: () => actions.clearLogs(cur()),
      listSaved: actions.saved,
      save: (name, params) => actions.save({ name, server: cur(), method: 'tools/call', params }),
      deleteSaved: actions.deleteSaved,
      historyQuery: (q) => actions.history(q),
      historyDetail: actions.historyEntry,
      replay: (e: HistoryEntry) => {
        const t = replayTab(e.method);
        if (!t) return;
        nonce.current += 1;
        const a = replayArgs(e);
        setPrefill((p) => ({ ...p, [t]: { nonce: nonce.current, ...a } }));
        if (e.server !== activeRef.current) setActive(e.server);
        setTab(t);
      },
      pin: actions.pin,
      unpin: actions.unpin,
      clearHistory: () => actions.clearHistory(cur()),
      historyExportUrl: actions.historyExportUrl,
      historyResultUrl: actions.historyResultUrl,
      frameBodyUrl: (seq) => actions.frameBodyUrl(cur(), seq),
      olderFrames: () => actions.olderFrames(cur()),
      newerFrames: () => actions.newerFrames(cur()),
      answerInteraction: actions.answerInteraction,
      appsList: () => actions.apps(cur()),
      appActions: {
        about: actions.about,
        resource: (tool) => actions.appResource(cur(), tool),
        request: (app, method, params) => actions.appRequest(cur(), app, method, params),
        launch: (tool, args, asApp) => actions.launchApp(cur(), tool, args, asApp),
        cancel: actions.cancel,
        record: (body) => actions.appFrame(cur(), body),
      },
      auth: {
        load: actions.authView,
        token: actions.authToken,
        reauthorize: actions.reauthorize,
        forget: actions.forgetAuth,
        cancel: actions.cancelAuth,
      },
    };
  }, [actions]);

  return (
    <>
      <DeepLinkModal link={askLink} onConfirm={() => askLink && followLink(askLink)} onClose={() => setAskLink(null)} />
      <InspectorView
        servers={state.servers}
        stream={state.stream}
        active={activeServer ? active : null}
        tab={tab}
        data={data}
        infos={infos}
        counts={counts}
        history={state.history}
        prefill={prefill}
        historyFocus={historyFocus}
        logRequest={logRequest && logRequest.server === active ? logRequest.id : null}
        infoOpen={infoOpen}
        auth={state.auth}
        interactions={state.interactions}
        urlWaits={state.urlWaits}
        inflight={inflight}
        appOpen={appOpen}
        cb={cb}
      />
    </>
  );
}
