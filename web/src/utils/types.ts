// Types of the mcpscope web API (docs/web-api.md). Pure declarations, no behaviour.
// What travels in events, the catalog entry, frame metadata, the eras, the form model, the
// authorization summary, the stored grant, the token and the secret store are generated from the
// Rust types (src/generated/events.ts) and re-exported here; the rest is written by hand.

// The generated CatalogEntry names the secret-aware value type by importing it from here.
export type { EntryValue } from './secrets';

export type {
  AuthClientSummary,
  AuthPending,
  AuthStored,
  AuthSummary,
  AuthToken,
  AuthView,
  CatalogEntry,
  EnumOption,
  Era,
  EraPreference,
  FieldKind,
  FormField,
  FrameDirection,
  FrameKind,
  FrameMeta,
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
  SecretStoreView,
  ServerRequestEvent,
  ServerView,
  StoreInfo,
  StringFormat,
  WarningEvent,
  WebEvent,
} from '../generated/events';
import type { Era } from '../generated/events';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type Transport = 'stdio' | 'http' | 'sse';
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

export type FrameSource = 'jsonrpc' | 'http' | 'stderr' | 'oauth' | 'lifecycle' | 'app';

export type Verdict = 'ok' | 'mismatch' | 'missing' | 'undeclared' | 'unchecked';

// --- authorization (OAuth 2.1) ---

export type AuthState = 'none' | 'authorizing' | 'authorized' | 'failed';

/** The tabs of the top bar. */
export type TabId = 'tools' | 'apps' | 'resources' | 'prompts' | 'logs' | 'tasks' | 'history' | 'traffic' | 'experimental';

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
