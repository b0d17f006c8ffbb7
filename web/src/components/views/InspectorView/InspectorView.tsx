import { Alert, AppShell, Button, Group, Modal, Text } from '@mantine/core';
import { memo, useMemo, useState } from 'react';
import type { Interaction } from '../../../generated/events';
import { pendingLogins } from '../../../utils/auth';
import { eraAdviceForWeb } from '../../../utils/format';
import { requestOf, type InteractionAnswer, type UrlWait } from '../../../utils/interactions';
import type { ListCounts, ServerData } from '../../../utils/state';
import type { AppsList } from '../../../utils/apps';
import type {
  AuthView,
  CallHandle,
  CallOutcome,
  CatalogEntry,
  EraPreference,
  FieldError,
  FormField,
  HistoryEntry,
  ImportResult,
  Json,
  JsonObject,
  Prefill,
  RegistryImport,
  SavedRequest,
  ServerInfo,
  ServerView,
  TabId,
} from '../../../utils/types';
import type { AppActions } from '../../groups/AppFrame/AppFrame';
import { AuthDialog } from '../../groups/AuthDialog/AuthDialog';
import { AuthPanel, type AuthActions } from '../../groups/AuthPanel/AuthPanel';
import { PendingModal } from '../../groups/PendingModal/PendingModal';
import { PendingRequests } from '../../groups/PendingRequests/PendingRequests';
import { ServerInfoPanel } from '../../groups/ServerInfoPanel/ServerInfoPanel';
import { TopBar, useTopBarHeight } from '../../groups/TopBar/TopBar';
import { AppsScreen } from '../../screens/AppsScreen/AppsScreen';
import { HistoryScreen, type HistoryQueryArgs } from '../../screens/HistoryScreen/HistoryScreen';
import { LogsScreen } from '../../screens/LogsScreen/LogsScreen';
import { PromptsScreen } from '../../screens/PromptsScreen/PromptsScreen';
import { ResourcesScreen } from '../../screens/ResourcesScreen/ResourcesScreen';
import { SubscriptionsPanel } from '../../groups/SubscriptionsPanel/SubscriptionsPanel';
import { declaresSubscribe, subscribedUris } from '../../groups/SubscriptionsPanel/subscriptions';
import { ServerListScreen } from '../../screens/ServerListScreen/ServerListScreen';
import { TasksScreen } from '../../screens/TasksScreen/TasksScreen';
import { ToolsScreen } from '../../screens/ToolsScreen/ToolsScreen';
import { TrafficScreen } from '../../screens/TrafficScreen/TrafficScreen';
import { ExperimentalScreen } from '../../screens/ExperimentalScreen/ExperimentalScreen';

/** Everything the view can ask for; the top container binds these to the API. */
export interface InspectorCallbacks {
  selectServer: (name: string | null) => void;
  setTab: (tab: TabId) => void;
  showInfo: (open: boolean) => void;
  connect: (name: string) => void;
  disconnect: (name: string) => void;
  loadInfo: (name: string) => void;
  setProtocol: (name: string, era: EraPreference) => void;
  addServer: (name: string, entry: CatalogEntry) => Promise<unknown>;
  updateServer: (oldName: string, name: string, entry: CatalogEntry) => Promise<unknown>;
  removeServer: (name: string) => void;
  importConfig: (text: string) => Promise<ImportResult>;
  importRegistry: (text: string) => Promise<RegistryImport>;
  addFromRegistry: (text: string, choice: { package?: number; remote?: number }, name: string, env: Record<string, string>) => Promise<ServerView>;
  refresh: (what: 'tools' | 'resources' | 'prompts') => void;
  moreResources: () => void;
  formModel: (schema: Json) => Promise<FormField>;
  validateTool: (tool: string, args: Json) => Promise<{ errors: FieldError[] }>;
  /** Check the `structuredContent` of a call's history entry against its tool's `outputSchema`. */
  checkOutput: (historyId: number, schema: Json) => Promise<{ errors: FieldError[]; unusable?: string }>;
  callTool: (tool: string, args: Json, meta?: JsonObject) => CallHandle;
  cancel: (requestId: string) => Promise<boolean>;
  read: (uri: string) => Promise<CallOutcome>;
  subscribe: (uri: string, on: boolean) => Promise<CallOutcome>;
  getPrompt: (name: string, args: JsonObject) => Promise<CallOutcome>;
  complete: (ref: JsonObject, argument: string, value: string, context: Record<string, string>) => Promise<string[]>;
  openResource: (uri: string) => void;
  showInHistory: (id: number) => void;
  showLogsOf: (id: number | null) => void;
  setLogLevel: (level: string) => void;
  clearLogs: () => void;
  listSaved: () => Promise<SavedRequest[]>;
  save: (name: string, params: Json) => Promise<unknown>;
  deleteSaved: (id: number | string) => Promise<unknown>;
  historyQuery: (q: HistoryQueryArgs) => Promise<{ entries: HistoryEntry[]; nextBefore: number | null }>;
  historyDetail: (id: number) => Promise<HistoryEntry>;
  replay: (e: HistoryEntry) => void;
  pin: (id: number, label: string) => Promise<HistoryEntry>;
  unpin: (id: number) => Promise<HistoryEntry>;
  clearHistory: () => Promise<unknown>;
  historyExportUrl: (q: HistoryQueryArgs) => string;
  historyResultUrl: (id: number) => string;
  frameBodyUrl: (seq: number) => string;
  olderFrames: () => Promise<void>;
  newerFrames: () => Promise<void>;
  /** OAuth: the Authorization panel's calls and the sign-in dialog's Cancel. */
  auth: AuthActions;
  /** Answer what a server asked (`POST /api/interactions/:id`); false when it was refused. */
  answerInteraction: (id: number, answer: InteractionAnswer) => Promise<boolean>;
  /** MCP Apps of the active server: its app tools and what a running app needs. */
  appsList: () => Promise<AppsList>;
  appActions: AppActions;
}

/** A call this page started and is waiting for, by the view's request id: which server and
 *  which screen (its questions are drawn under it while that screen is shown). */
export interface InFlight {
  server: string;
  tab: TabId;
}

export interface InspectorViewProps {
  servers: ServerView[];
  stream: 'connecting' | 'open' | 'error';
  active: string | null;
  tab: TabId;
  data: ServerData | null;
  infos: Record<string, ServerInfo | null>;
  /** What each server's lists hold (Server Info's counts, from a card as from the header). */
  counts: Record<string, ListCounts>;
  history: HistoryEntry[];
  prefill: Partial<Record<TabId, Prefill>>;
  historyFocus: number | null;
  logRequest: number | null;
  infoOpen: boolean;
  /** The last authorization view of each server. */
  auth: Record<string, AuthView>;
  /** What the servers asked that waits for an answer, oldest first. */
  interactions: Interaction[];
  urlWaits: UrlWait[];
  inflight: Record<string, InFlight>;
  /** A deep link's app to open (`?server=&openApp=&appArgs=`), once per nonce. */
  appOpen: { nonce: number; tool: string; args: JsonObject } | null;
  cb: InspectorCallbacks;
}

const NO_PENDING: Record<string, Interaction[]> = {};

/**
 * Which questions are drawn inline, by the request id of the call they belong to: those of a
 * call of the active server started from the screen now shown. Every other goes to the modal.
 */
function splitPending(
  interactions: Interaction[],
  history: HistoryEntry[],
  inflight: Record<string, InFlight>,
  active: string | null,
  tab: TabId,
  forced: boolean,
): { inline: Record<string, Interaction[]>; modal: Interaction[] } {
  if (forced || !active) return { inline: NO_PENDING, modal: interactions };
  const inline: Record<string, Interaction[]> = {};
  const modal: Interaction[] = [];
  for (const i of interactions) {
    const req = requestOf(i, history);
    const f = req ? inflight[req] : undefined;
    if (req && f && f.server === active && i.server === active && f.tab === tab) (inline[req] ??= []).push(i);
    else modal.push(i);
  }
  return { inline, modal };
}

// Screens re-render only when their own props change (frames arrive many times a second).
const Tools = memo(ToolsScreen);
const Apps = memo(AppsScreen);
const Resources = memo(ResourcesScreen);
const Prompts = memo(PromptsScreen);
const Logs = memo(LogsScreen);
const Tasks = memo(TasksScreen);
const History = memo(HistoryScreen);
const Traffic = memo(TrafficScreen);
const Experimental = memo(ExperimentalScreen);

function Screens({ p, server, pendingOf, serverInfos }: { p: InspectorViewProps; server: ServerView; pendingOf: Record<string, Interaction[]>; serverInfos: Record<string, JsonObject | null> }) {
  const d = p.data!;
  const cb = p.cb;
  const show = (t: TabId) => (p.tab === t ? 'mcpscope-screen' : 'mcpscope-screen mcpscope-hidden');
  const recent = useMemo(() => p.history.filter((h) => h.server === server.name).slice(0, 30), [p.history, server.name]);
  const caps = p.infos[server.name]?.capabilities ?? null;
  const offers = (c: string) => !caps || (caps[c] !== undefined && caps[c] !== null);
  // Prompts and Resources run one request at a time: every inline question is that request's.
  const inlineBlock = useMemo(() => {
    const items = Object.values(pendingOf).flat();
    return items.length > 0 ? <PendingRequests items={items} serverInfos={serverInfos} onAnswer={cb.answerInteraction} onFormModel={cb.formModel} /> : null;
  }, [pendingOf, serverInfos, cb]);
  // Memoised so the Resources screen does not re-render with every frame.
  const subscribed = useMemo(() => subscribedUris(d.subscriptions), [d.subscriptions]);
  const canSubscribe = declaresSubscribe(caps);
  const subscriptions = useMemo(
    () => <SubscriptionsPanel server={server.name} view={d.subscriptions} resources={d.resources} onRead={cb.read} canSubscribe={canSubscribe} />,
    [server.name, d.subscriptions, d.resources, cb.read, canSubscribe],
  );
  const h = useMemo(
    () => ({
      refreshTools: () => cb.refresh('tools'),
      refreshResources: () => cb.refresh('resources'),
      refreshPrompts: () => cb.refresh('prompts'),
      showLogs: (id: number) => cb.showLogsOf(id),
    }),
    [cb],
  );
  return (
    <div className="mcpscope-fill" key={`${server.name}:${d.resetCount}`} data-testid="screens" data-server={server.name} data-reset={d.resetCount}>
      <div className={show('tools')}>
        <Tools
          server={server.name}
          tools={d.tools}
          excluded={d.excluded}
          lint={d.lint}
          listChanged={d.changed.tools}
          progress={d.progress}
          serverRequests={d.serverRequests}
          pendingOf={p.tab === 'tools' ? pendingOf : NO_PENDING}
          serverInfos={serverInfos}
          onAnswer={cb.answerInteraction}
          prefill={p.prefill.tools ?? null}
          onRefresh={h.refreshTools}
          onFormModel={cb.formModel}
          onValidate={cb.validateTool}
          onCheckOutput={cb.checkOutput}
          onCall={cb.callTool}
          onCancel={cb.cancel}
          completedElicitations={d.completedElicitations}
          onOpenResource={cb.openResource}
          onShowInHistory={cb.showInHistory}
          onListSaved={cb.listSaved}
          onSave={cb.save}
          onDeleteSaved={cb.deleteSaved}
        />
      </div>
      <div className={show('apps')}>
        <Apps
          server={server.name}
          tools={d.tools}
          listChanged={d.changed.tools}
          onRefresh={h.refreshTools}
          onFormModel={cb.formModel}
          onValidate={cb.validateTool}
          onShowInHistory={cb.showInHistory}
          list={cb.appsList}
          actions={cb.appActions}
          open={p.appOpen && p.appOpen.nonce > 0 ? p.appOpen : null}
        />
      </div>
      <div className={show('resources')}>
        <Resources
          resources={d.resources}
          offered={offers('resources')}
          hasMore={d.resourcesCursor !== null}
          templates={d.templates}
          listChanged={d.changed.resources}
          updated={d.updatedResources}
          prefill={p.prefill.resources ?? null}
          onRefresh={h.refreshResources}
          onMore={cb.moreResources}
          onRead={cb.read}
          subscribed={subscribed}
          canSubscribe={canSubscribe}
          onSubscribe={cb.subscribe}
          onFormModel={cb.formModel}
          onComplete={cb.complete}
          pending={p.tab === 'resources' ? inlineBlock : null}
          subscriptions={subscriptions}
        />
      </div>
      <div className={show('prompts')}>
        <Prompts
          prompts={d.prompts}
          offered={offers('prompts')}
          listChanged={d.changed.prompts}
          prefill={p.prefill.prompts ?? null}
          onRefresh={h.refreshPrompts}
          onGet={cb.getPrompt}
          onFormModel={cb.formModel}
          onComplete={cb.complete}
          onOpenResource={cb.openResource}
          pending={p.tab === 'prompts' ? inlineBlock : null}
        />
      </div>
      <div className={show('logs')}>
        <Logs
          server={server.name}
          logs={d.logs}
          level={d.logLevel}
          recent={recent}
          requestFilter={p.logRequest}
          onRequestFilter={cb.showLogsOf}
          onSetLevel={cb.setLogLevel}
          onClear={cb.clearLogs}
          onShowInHistory={cb.showInHistory}
        />
      </div>
      <div className={show('tasks')}>
        <Tasks server={server.name} visible={p.tab === 'tasks'} pushedVersion={d.tasksVersion} status={server.status} interactions={p.interactions} serverRequests={d.serverRequests} progress={d.progress} onShowInHistory={cb.showInHistory} />
      </div>
      <div className={show('history')}>
        <History
          server={server.name}
          live={p.history}
          focusId={p.historyFocus}
          onQuery={cb.historyQuery}
          onDetail={cb.historyDetail}
          onReplay={cb.replay}
          onPin={cb.pin}
          onUnpin={cb.unpin}
          onClear={cb.clearHistory}
          exportUrl={cb.historyExportUrl}
          resultUrl={cb.historyResultUrl}
          onShowLogs={h.showLogs}
        />
      </div>
      <div className={show('traffic')}>
        <Traffic frames={d.frames} warnings={d.warnings} bodyUrl={cb.frameBodyUrl} onOlder={cb.olderFrames} onNewer={cb.newerFrames} onShowInHistory={cb.showInHistory} />
      </div>
      <div className={show('experimental')}>
        <Experimental server={server.name} info={p.infos[server.name] ?? null} />
      </div>
    </div>
  );
}

/** The whole inspector: top bar, then the server list or the active server's screens. */
export function InspectorView(p: InspectorViewProps) {
  const server = p.active ? p.servers.find((s) => s.name === p.active) ?? null : null;
  const headerHeight = useTopBarHeight(!!server);
  const cb = p.cb;
  const logins = useMemo(() => pendingLogins(p.auth), [p.auth]);
  // The badge shows every question in the modal, inline ones too, until the modal is closed.
  const [forced, setForced] = useState(false);
  const [reopen, setReopen] = useState(0);
  const active = server ? server.name : null;
  const { inline, modal } = useMemo(
    () => splitPending(p.interactions, p.history, p.inflight, active, p.tab, forced),
    [p.interactions, p.history, p.inflight, active, p.tab, forced],
  );
  const serverInfos = useMemo(() => {
    const out: Record<string, JsonObject | null> = {};
    for (const [name, info] of Object.entries(p.infos)) out[name] = info?.serverInfo ?? null;
    return out;
  }, [p.infos]);
  return (
    <AppShell header={{ height: headerHeight }} padding={0}>
      <AppShell.Header>
        <TopBar
          server={server}
          servers={p.servers}
          tab={p.tab}
          protocol={server?.entry.protocolEra ?? 'auto'}
          stream={p.stream}
          onTab={cb.setTab}
          onSelectServer={cb.selectServer}
          onProtocol={(era) => server && cb.setProtocol(server.name, era)}
          onDisconnect={() => server && cb.disconnect(server.name)}
          onInfo={() => cb.showInfo(true)}
          pending={p.interactions.length}
          onPending={() => {
            setForced(true);
            setReopen((n) => n + 1);
          }}
        />
      </AppShell.Header>
      <AppShell.Main className="mcpscope-main" data-testid="main" data-view={server ? 'server' : 'list'}>
        {!server || !p.data ? (
          <ServerListScreen
            servers={p.servers}
            infos={p.infos}
            counts={p.counts}
            onConnect={cb.connect}
            onDisconnect={cb.disconnect}
            onOpen={(n) => cb.selectServer(n)}
            onLoadInfo={cb.loadInfo}
            onAdd={cb.addServer}
            onUpdate={cb.updateServer}
            onRemove={cb.removeServer}
            onImportConfig={cb.importConfig}
            onImportRegistry={cb.importRegistry}
            onAddFromRegistry={cb.addFromRegistry}
            auth={p.auth}
            authActions={cb.auth}
          />
        ) : (
          <div className="mcpscope-fill mcpscope-col">
            {server.status !== 'connected' && (
              <Alert color={server.status === 'failed' ? 'red' : 'yellow'} p="xs" radius={0} data-testid="connection-banner" data-status={server.status}>
                <Group justify="space-between">
                  <Text size="sm">
                    {server.status === 'connecting' ? 'Connecting…' : server.status === 'failed' ? `Connection failed: ${eraAdviceForWeb(server.error?.message ?? '')}` : 'Disconnected.'}{' '}
                    History and Traffic stay available.
                  </Text>
                  <Group gap="xs">
                    <Button size="compact-xs" onClick={() => cb.connect(server.name)} disabled={server.status === 'connecting'} data-testid="reconnect">
                      Reconnect
                    </Button>
                    <Button size="compact-xs" variant="default" onClick={() => cb.selectServer(null)}>
                      All servers
                    </Button>
                  </Group>
                </Group>
              </Alert>
            )}
            <div className="mcpscope-grow mcpscope-col">
              <Screens p={p} server={server} pendingOf={inline} serverInfos={serverInfos} />
            </div>
          </div>
        )}
        <Modal opened={p.infoOpen && !!server} onClose={() => cb.showInfo(false)} title="Server Information" data-testid="server-info-modal">
          {server && (
            <ServerInfoPanel
              server={server}
              info={p.infos[server.name] ?? null}
              counts={p.counts[server.name]}
              authPanel={<AuthPanel server={server} view={p.auth[server.name] ?? null} actions={cb.auth} />}
            />
          )}
        </Modal>
        <PendingModal
          items={modal}
          waits={p.urlWaits}
          reopen={reopen}
          serverInfos={serverInfos}
          onAnswer={cb.answerInteraction}
          onFormModel={cb.formModel}
          onClosed={() => setForced(false)}
        />
        <AuthDialog logins={logins} onCancel={cb.auth.cancel} />
      </AppShell.Main>
    </AppShell>
  );
}
