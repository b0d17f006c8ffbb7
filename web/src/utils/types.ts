// Types of the mcpscope web API (docs/web-api.md). Pure declarations, no behaviour.
// What travels in events, and the catalog entry, are generated from the Rust types
// (src/generated/events.ts) and re-exported here; the rest is written by hand.

// The generated CatalogEntry names the secret-aware value type by importing it from here.
export type { EntryValue } from './secrets';

export type {
  AuthPending,
  AuthView,
  CatalogEntry,
  FrameView,
  HeaderRow,
  HeaderVerdicts,
  HistoryChild,
  HistoryEntry,
  LintFinding,
  LogEvent,
  NotificationEvent,
  OAuthEntry,
  ProgressEvent,
  ServerRequestEvent,
  ServerView,
  WarningEvent,
  WebEvent,
} from '../generated/events';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type Transport = 'stdio' | 'http' | 'sse';
export type EraPreference = 'legacy' | 'modern' | 'auto';
export type Era = 'legacy' | 'modern';
export type ServerStatus = 'disconnected' | 'connecting' | 'connected' | 'failed';

export interface ApiErrorBody {
  code: string;
  message: string;
  retries?: number;
  rpcCode?: number;
  data?: Json;
  historyId?: number;
  [key: string]: unknown;
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
  /** On the lifecycle note of an HTTP exchange that ended without an answer. */
  failed?: boolean;
}

export type Verdict = 'ok' | 'mismatch' | 'missing' | 'undeclared' | 'unchecked';

// --- authorization (OAuth 2.1) ---

export type AuthState = 'none' | 'authorizing' | 'authorized' | 'failed';

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
