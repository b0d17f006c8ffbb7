// Types of the mcpscope web API (docs/web-api.md). Pure declarations, no behaviour.
import type { EntryValue } from './secrets';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type Transport = 'stdio' | 'http' | 'sse';
export type EraPreference = 'legacy' | 'modern' | 'auto';
export type Era = 'legacy' | 'modern';
export type ServerStatus = 'disconnected' | 'connecting' | 'connected' | 'failed';

/** An `mcp.json` entry. */
export interface CatalogEntry {
  type?: Transport;
  command?: string;
  args?: string[];
  /** Values are strings, or secrets kept in the secret store (utils/secrets.ts). */
  env?: Record<string, EntryValue>;
  cwd?: string;
  url?: string;
  headers?: Record<string, EntryValue>;
  protocolEra?: EraPreference;
  connectionTimeout?: number;
  requestTimeout?: number;
  /** OAuth settings of an HTTP/SSE entry; absent when all are defaults. */
  oauth?: OAuthEntry;
}

/** `entry.oauth`: a pre-registered public client, a Client ID Metadata Document, scopes, profile. */
export interface OAuthEntry {
  clientId?: string;
  clientMetadataUrl?: string;
  /** Space-separated scopes asked for in place of the challenge's. */
  scope?: string;
  profile?: string;
}

export interface ApiErrorBody {
  code: string;
  message: string;
  retries?: number;
  rpcCode?: number;
  data?: Json;
  historyId?: number;
  [key: string]: unknown;
}

export interface ServerView {
  name: string;
  entry: CatalogEntry;
  transport: Transport;
  target: string;
  status: ServerStatus;
  error: ApiErrorBody | null;
  latencyMs: number | null;
  era: Era | null;
  protocolVersion: string | null;
}

export interface ServerInfo {
  era: Era;
  protocolVersion: string;
  serverInfo: JsonObject | null;
  capabilities: JsonObject | null;
  clientCapabilities?: JsonObject | null;
  instructions?: string;
  transport: string;
  sessionId?: string;
  notes?: string[];
  handshakeResult?: Json;
  /** `stateless` / `session` / `sessionless legacy`. */
  connectionKind?: string;
}

export interface ImportResult {
  added: string[];
  skipped: { name: string; reason: string }[];
}

export interface RegistryEnvVar {
  name: string;
  description?: string | null;
  isRequired?: boolean;
  isSecret?: boolean;
  default?: string | null;
  choices?: string[];
}

export interface RegistryPackage {
  index: number;
  registryType?: string;
  identifier?: string;
  version?: string | null;
  runtimeHint?: string | null;
  transport?: Json;
  environmentVariables?: RegistryEnvVar[];
  launchable?: boolean;
  problem?: string | null;
}

export interface RegistryRemote {
  index: number;
  type?: string | null;
  url?: string | null;
  headers?: RegistryEnvVar[];
}

export interface RegistryCheck {
  level: 'ok' | 'info' | 'warning' | 'error' | string;
  path?: string | null;
  message: string;
  line?: number | null;
}

export interface RegistryImport {
  validation: RegistryCheck[];
  packages: RegistryPackage[];
  remotes: RegistryRemote[];
  name?: string | null;
  suggestedName?: string | null;
  title?: string | null;
  description?: string | null;
  version?: string | null;
}

export interface FieldError {
  path: string;
  message: string;
}

// --- schema → form model (mcpscope_proto::form::Field, serialised as is) ---

export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';

export interface EnumOption {
  value: Json;
  label: string;
}

export type FieldKind =
  | { type: 'object'; fields: FormField[]; open: boolean }
  | { type: 'array'; items: FormField; min_items?: number; max_items?: number; minItems?: number; maxItems?: number }
  | {
      type: 'string';
      format?: StringFormat;
      min_length?: number;
      max_length?: number;
      minLength?: number;
      maxLength?: number;
      pattern?: string;
    }
  | { type: 'number'; integer: boolean; minimum?: number; maximum?: number }
  | { type: 'boolean' }
  | { type: 'enum'; options: EnumOption[]; multi: boolean }
  | { type: 'json'; reason: string };

export interface FormField {
  key: string;
  title: string;
  description?: string;
  required: boolean;
  nullable: boolean;
  default?: Json;
  kind: FieldKind;
}

// --- requests, history, traffic ---

export type HistoryStatus = 'ok' | 'error' | 'cancelled' | 'pending';

/** Something a request caused: `progress`, `log`, `serverRequest` or `notification`. */
export interface HistoryChild {
  kind: string;
  offsetMs: number;
  data?: Json;
}

export interface HistoryEntry {
  id: number;
  server: string;
  method: string;
  params?: Json;
  status: HistoryStatus;
  result?: Json;
  error?: ApiErrorBody | Json;
  startedAt: string;
  startedAtUs: number;
  durationMs: number | null;
  pinned: boolean;
  label?: string | null;
  era?: Era | null;
  parentId?: number | null;
  truncated?: boolean;
  resultSize?: number;
  requestId?: string | null;
  children?: HistoryChild[];
  frames?: number[];
}

export interface SavedRequest {
  id: number | string;
  name: string;
  server: string;
  method: string;
  params?: Json;
  createdAt?: string;
}

export type FrameDirection = 'out' | 'in' | 'local';
export type FrameSource = 'jsonrpc' | 'http' | 'stderr' | 'oauth' | 'lifecycle';

export interface FrameMeta {
  exchange?: number;
  method?: string;
  url?: string;
  status?: number;
  headers?: [string, string][];
  sse_id?: string;
  sse_event?: string;
  sse_retry?: number;
  note?: string;
  truncated?: boolean;
}

export type Verdict = 'ok' | 'mismatch' | 'missing' | 'undeclared' | 'unchecked';

export interface HeaderRow {
  header: string;
  expected?: string | null;
  sent?: string | null;
  verdict: Verdict;
  note?: string | null;
}

export interface HeaderVerdicts {
  request: [string, string][];
  status: number | null;
  mirrored: [string, string][];
  firstDisagreement: string | null;
  rows: HeaderRow[];
  failed: boolean;
}

export interface LintFinding {
  path: string;
  message: string;
}

export interface FrameView {
  seq: number;
  server: string;
  timeUs: number;
  direction: FrameDirection;
  kind: string;
  source: FrameSource;
  meta: FrameMeta;
  text: string | null;
  base64: string | null;
  size: number;
  truncated: boolean;
  message: 'request' | 'response' | 'notification' | 'error' | 'batch' | 'invalid' | null;
  method: string | null;
  id: number | string | null;
  durationMs: number | null;
  lint: LintFinding[] | null;
  headers: HeaderVerdicts | null;
}

// --- authorization (OAuth 2.1) ---

export type AuthState = 'none' | 'authorizing' | 'authorized' | 'failed';

/** A login waiting for a person: the page opens `url` in a new tab. */
export interface AuthPending {
  id: string;
  url: string;
  issuer: string | null;
  scopes: string[];
  reason: 'login' | 'step-up';
  startedAt: string;
}

/** What the flow established (never the token itself). */
export interface AuthSummary {
  issuer: string | null;
  authorizationServerMetadata: string | null;
  protectedResourceMetadata: string | null;
  resource: string | null;
  client: { clientId: string; registration: string; tokenEndpointAuthMethod: string } | null;
  /** Granted scopes, space-separated. */
  scope: string | null;
  requestedScope?: string | null;
  tokenType?: string | null;
  /** Unix seconds. */
  expiresAt: number | null;
  refreshToken: boolean;
  profile?: string | null;
}

/** Where tokens are kept: `keyring`, `file` (with how it is protected) or `memory`, and why. */
export type SecretStoreView =
  | { kind: string; location?: string | null; protection?: string | null; reason?: string | null }
  | { error: string };

export interface AuthView {
  server: string;
  applies: boolean;
  state: AuthState;
  pending: AuthPending | null;
  summary: AuthSummary | null;
  error: string | null;
  secretStore?: SecretStoreView | null;
  callbackUrl?: string | null;
  /** `GET …/auth` only, while nothing is loaded: the grant the secret store holds for this
   *  server and profile (used when it connects). */
  stored?: AuthStored | null;
}

/** A stored grant, described without its tokens. */
export interface AuthStored {
  issuer: string;
  scope: string | null;
  expiresAt: number | null;
  obtainedAt: number;
  refreshToken: boolean;
  clientId: string | null;
  profile: string;
}

/** `GET /api/servers/:name/auth/token`. */
export interface AuthToken {
  accessToken: string;
  tokenType?: string | null;
  expiresAt?: number | null;
}

// --- events ---

export interface ProgressEvent {
  server: string;
  requestId: string;
  historyId?: number;
  method?: string;
  progress: number;
  total?: number | null;
  message?: string | null;
}

export interface LogEvent {
  server: string;
  level: string;
  logger?: string | null;
  data: Json;
  historyId?: number | null;
  timeUs: number;
}

export interface NotificationEvent {
  server: string;
  method: string;
  params?: Json;
}

export interface ServerRequestEvent {
  server: string;
  method: string;
  params?: Json;
  origin?: Json;
  answer?: Json;
}

export interface WarningEvent {
  server: string;
  message: string;
  frameSeq?: number;
}

/** The tabs of the top bar. */
export type TabId = 'tools' | 'apps' | 'resources' | 'prompts' | 'logs' | 'tasks' | 'history' | 'traffic';

/** How a request ended, as the screens see it. */
export type CallOutcome =
  | { ok: true; historyId: number; result: Json }
  | { ok: false; error: ApiErrorBody };

/** A request in flight: its id (for Cancel) and its outcome. */
export interface CallHandle {
  requestId: string;
  done: Promise<CallOutcome>;
}

/** Pre-fill for a screen (History → Replay). `nonce` changes on every replay. */
export interface Prefill {
  nonce: number;
  name?: string;
  uri?: string;
  args?: Json;
  meta?: Json;
}
