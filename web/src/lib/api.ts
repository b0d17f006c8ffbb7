// The REST client of docs/web-api.md. Auth is the HttpOnly cookie set by `GET /?token=…`, so the
// SPA never handles the token; requests are same-origin.

import type { ActiveProfile, Interaction, InteractionClosed, Profile, ProfileAnswer, ProfilesView } from '../generated/events';
import type { CapabilitiesView, CapabilitySettings, SendBody, SendResult } from '../utils/experimental';
import type { TaskDetail, TaskRunAnswer, TasksPage } from '../components/screens/TasksScreen/tasks';
import type { About, AppFrameBody, AppResource, AppsList } from '../utils/apps';
import type { InteractionAnswer } from '../utils/interactions';
import type { RootRow, RootsAnswer } from '../utils/roots';
import type {
  ApiErrorBody,
  AuthToken,
  AuthView,
  CatalogEntry,
  EraPreference,
  FieldError,
  FormField,
  FrameView,
  HistoryEntry,
  ImportResult,
  Json,
  JsonObject,
  RegistryCheck,
  RegistryImport,
  SavedRequest,
  ServerInfo,
  ServerView,
} from '../utils/types';

/** An error answer of the API, with its stable code. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ApiErrorBody;
  constructor(status: number, body: ApiErrorBody) {
    super(body.message || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
  get code(): string {
    return this.body.code;
  }
}

async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const init: RequestInit = { method, headers: {}, credentials: 'same-origin', signal };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError(0, { code: 'unreachable', message: 'the mcpscope backend is not reachable' });
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!res.ok) {
    const err = (parsed as { error?: ApiErrorBody } | undefined)?.error;
    throw new ApiError(res.status, err ?? { code: res.status === 401 ? 'unauthorized' : 'http', message: text || `HTTP ${res.status}` });
  }
  return parsed as T;
}

/** `/request` and `/list` answer 200 when a request ended as the server or the user meant it
 *  (a JSON-RPC error, a cancel), with the error in the body: thrown here as the ApiError it is,
 *  so callers see one shape, and the browser logs no failed load for an ordinary outcome. */
async function outcome<T>(answer: Promise<T & { error?: ApiErrorBody }>): Promise<T> {
  const body = await answer;
  if (body && typeof body === 'object' && body.error && typeof body.error === 'object') throw new ApiError(200, body.error);
  return body;
}

const enc = encodeURIComponent;

function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`)
    .join('&');
  return q ? `?${q}` : '';
}

export interface RequestOptions {
  params?: Json;
  requestId?: string;
  progress?: boolean;
  meta?: JsonObject;
  timeoutMs?: number | null;
  /** A request an MCP App makes (the backend applies the tool visibility rules). */
  origin?: { app: string };
}

export interface RequestAnswer {
  historyId: number;
  result: Json;
}

export interface ListAnswer {
  historyId: number;
  result: JsonObject;
  excludedTools?: unknown;
}

export interface HistoryQuery {
  q?: string;
  server?: string;
  method?: string;
  status?: string;
  from?: string;
  to?: string;
  pinned?: boolean;
  limit?: number;
  before?: number;
}

export const api = {
  servers: () => call<{ servers: ServerView[] }>('GET', '/api/servers'),
  addServer: (name: string, entry: CatalogEntry) => call<ServerView>('POST', '/api/servers', { name, entry }),
  updateServer: (oldName: string, name: string, entry: CatalogEntry) =>
    call<ServerView>('PUT', `/api/servers/${enc(oldName)}`, { name, entry }),
  removeServer: (name: string) => call<Record<string, never>>('DELETE', `/api/servers/${enc(name)}`),
  importConfig: (text: string) => call<ImportResult>('POST', '/api/servers/import', { text }),
  importRegistry: (text: string) => call<RegistryImport>('POST', '/api/servers/import/registry', { text }),
  /** The chosen package on its registry and its command on the PATH, or the remote answering. */
  verifyRegistry: (text: string, choice: { package?: number; remote?: number }) =>
    call<{ checks: RegistryCheck[] }>('POST', '/api/servers/import/registry/verify', { text, choice }),
  addFromRegistry: (text: string, choice: { package?: number; remote?: number }, name: string, env: Record<string, string>) =>
    call<ServerView>('POST', '/api/servers/import/registry/add', { text, choice, name, env }),

  connect: (name: string, protocolEra?: EraPreference) =>
    call<ServerInfo>('POST', `/api/servers/${enc(name)}/connect`, protocolEra ? { protocolEra } : {}),
  disconnect: (name: string) => call<Record<string, never>>('POST', `/api/servers/${enc(name)}/disconnect`, {}),
  info: (name: string) => call<ServerInfo>('GET', `/api/servers/${enc(name)}/info`),
  setProtocolEra: (name: string, protocolEra: EraPreference) =>
    call<ServerInfo | Record<string, never>>('PUT', `/api/servers/${enc(name)}/protocol-era`, { protocolEra }),
  setLogLevel: (name: string, level: string) =>
    call<{ historyId?: number; result?: Json }>('PUT', `/api/servers/${enc(name)}/log-level`, { level }),

  request: (name: string, method: string, opts: RequestOptions = {}) =>
    outcome(call<RequestAnswer>('POST', `/api/servers/${enc(name)}/request`, { method, ...opts })),
  list: (name: string, method: string, key: string, opts: { params?: Json; cursor?: string; allPages?: boolean } = {}) =>
    outcome(call<ListAnswer>('POST', `/api/servers/${enc(name)}/list`, { method, key, ...opts })),
  cancel: (requestId: string) => call<{ cancelled: boolean }>('POST', `/api/requests/${enc(requestId)}/cancel`, {}),
  validateTool: (name: string, tool: string, args: Json) =>
    call<{ errors: FieldError[] }>('POST', `/api/servers/${enc(name)}/tools/${enc(tool)}/validate`, { arguments: args }),
  form: (schema: Json) => call<FormField>('POST', '/api/form', { schema }),
  validate: (schema: Json, value: Json) => call<{ errors: FieldError[] }>('POST', '/api/validate', { schema, value }),
  /** A call's `structuredContent` checked where it is stored (its history entry), never posted back. */
  checkOutput: (historyId: number, schema: Json) => call<{ errors: FieldError[]; unusable?: string }>('POST', `/api/history/${historyId}/check-output`, { schema }),

  history: (q: HistoryQuery) => call<{ entries: HistoryEntry[]; nextBefore: number | null }>('GET', `/api/history${query({ ...q })}`),
  historyEntry: (id: number) => call<HistoryEntry>('GET', `/api/history/${id}`),
  pin: (id: number, label: string) => call<HistoryEntry>('POST', `/api/history/${id}/pin`, { label }),
  unpin: (id: number) => call<HistoryEntry>('DELETE', `/api/history/${id}/pin`),
  clearHistory: (server?: string) => call<{ deleted: number }>('DELETE', `/api/history${query({ server })}`),
  historyExportUrl: (q: HistoryQuery) => `/api/history/export${query({ ...q })}`,
  historyResultUrl: (id: number) => `/api/history/${id}/result`,
  saved: () => call<{ saved: SavedRequest[] } | SavedRequest[]>('GET', '/api/saved'),
  save: (r: { name: string; server: string; method: string; params: Json }) => call<SavedRequest>('POST', '/api/saved', r),
  deleteSaved: (id: number | string) => call<Record<string, never>>('DELETE', `/api/saved/${enc(String(id))}`),

  auth: (name: string) => call<AuthView>('GET', `/api/servers/${enc(name)}/auth`),
  authToken: (name: string) => call<AuthToken>('GET', `/api/servers/${enc(name)}/auth/token`),
  /** Re-authorize with the granted scopes plus `scopes`; answers when the login is done. */
  reauthorize: (name: string, scopes: string[]) =>
    call<AuthView>('POST', `/api/servers/${enc(name)}/auth`, scopes.length ? { scopes } : {}),
  cancelAuth: (name: string) => call<Record<string, never>>('POST', `/api/servers/${enc(name)}/auth/cancel`, {}),
  forgetAuth: (name: string) => call<AuthView>('DELETE', `/api/servers/${enc(name)}/auth`),

  interactions: () => call<{ interactions: Interaction[] }>('GET', '/api/interactions'),
  answerInteraction: (id: number, answer: InteractionAnswer) => call<InteractionClosed>('POST', `/api/interactions/${id}`, answer),

  /** Testing Profiles: the profiles, each server's choice, a waiting sampling request answered by one. */
  profiles: () => call<ProfilesView>('GET', '/api/profiles'),
  putProfile: (name: string, profile: Profile) => call<Profile>('PUT', `/api/profiles/${enc(name)}`, profile),
  deleteProfile: (name: string) => call<Json>('DELETE', `/api/profiles/${enc(name)}`),
  setServerProfile: (server: string, choice: ActiveProfile) => call<ActiveProfile>('PUT', `/api/servers/${enc(server)}/profile`, choice),
  profileAnswer: (id: number) => call<ProfileAnswer>('GET', `/api/interactions/${id}/profile`),
  answerWithProfile: (id: number) => call<InteractionClosed>('POST', `/api/interactions/${id}/profile`, {}),

  /** The Experimental panel: one message sent by hand, the client capabilities of the next connect. */
  send: (name: string, body: SendBody) => call<SendResult>('POST', `/api/servers/${enc(name)}/send`, body),
  clientCapabilities: (name: string) => call<CapabilitiesView>('GET', `/api/servers/${enc(name)}/client-capabilities`),
  setClientCapabilities: (name: string, settings: CapabilitySettings) =>
    call<CapabilitiesView>('PUT', `/api/servers/${enc(name)}/client-capabilities`, settings),

  /** The roots a server is answered with (the Roots editor); a PUT saves them in its catalog entry. */
  roots: (name: string) => call<RootsAnswer>('GET', `/api/servers/${enc(name)}/roots`),
  setRoots: (name: string, roots: RootRow[]) => call<RootsAnswer>('PUT', `/api/servers/${enc(name)}/roots`, { roots }),

  /** The tasks the backend knows of (no request to the server); `unchanged` when `since` is current. */
  tasks: (name: string, since?: number) => call<TasksPage>('GET', `/api/servers/${enc(name)}/tasks${query({ since })}`),
  /** Only the tasks changed after version `since` (`delta: true`), after a `tasks` event. */
  tasksChanged: (name: string, since: number) => call<TasksPage>('GET', `/api/servers/${enc(name)}/tasks${query({ since, changed: true })}`),
  /** Run a tool as a task (legacy `params.task.ttl`; modern: the server decides). */
  runTask: (name: string, tool: string, args: Json, ttlMs: number | null, requestId?: string) =>
    call<TaskRunAnswer>('POST', `/api/servers/${enc(name)}/tasks`, { tool, arguments: args, ttlMs, requestId }),
  /** `tasks/list` where the server has it, else the backend's tasks re-read with `tasks/get`. */
  listTasks: (name: string) => call<TasksPage>('POST', `/api/servers/${enc(name)}/tasks/list`, {}),
  /** Forget ended tasks (no request): those named, or every ended one (Clear History). */
  dismissTasks: (name: string, taskIds?: string[]) => call<TasksPage>('POST', `/api/servers/${enc(name)}/tasks/dismiss`, taskIds ? { taskIds } : {}),
  task: (name: string, id: string) => call<TaskDetail>('GET', `/api/servers/${enc(name)}/tasks/${enc(id)}`),
  getTask: (name: string, id: string) => call<TaskDetail>('POST', `/api/servers/${enc(name)}/tasks/${enc(id)}/get`, {}),
  taskResult: (name: string, id: string) => call<TaskDetail>('POST', `/api/servers/${enc(name)}/tasks/${enc(id)}/result`, {}),
  cancelTask: (name: string, id: string) => call<TaskDetail>('POST', `/api/servers/${enc(name)}/tasks/${enc(id)}/cancel`, {}),
  taskResultUrl: (name: string, id: string) => `/api/servers/${enc(name)}/tasks/${enc(id)}/result`,
  /** The troubleshooting page of an error code (docs/troubleshooting/, served by the backend). */
  troubleshootingUrl: (code: string) => `/troubleshooting/${enc(code)}`,

  frames: (name: string, q: { after?: number; before?: number; limit?: number; source?: string }) =>
    call<{ frames: FrameView[] }>('GET', `/api/servers/${enc(name)}/frames${query(q)}`),
  frameBodyUrl: (name: string, seq: number) => `/api/servers/${enc(name)}/frames/${seq}/body`,

  /** MCP Apps: the sandbox URL, the app tools of the last tools/list, a checked UI resource, a bridge message recorded. */
  about: () => call<About>('GET', '/api/about'),
  apps: (name: string) => call<AppsList>('GET', `/api/servers/${enc(name)}/apps`),
  appResource: (name: string, tool: string) => call<AppResource>('POST', `/api/servers/${enc(name)}/apps/${enc(tool)}/resource`, {}),
  appFrame: (name: string, body: AppFrameBody) => call<{ seq: number | null; dropped: boolean }>('POST', `/api/servers/${enc(name)}/apps/frames`, body),
};

export type Api = typeof api;

/** A fresh request id (so a request can be cancelled before it answers). */
export function newRequestId(): string {
  if (typeof crypto !== 'undefined' && 'randomUUID' in crypto) return crypto.randomUUID();
  return `r-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}
