// Generated from the Rust types of crates/mcpscope-inspect/src/events/ by ts-rs: do not
// edit. Regenerate with `MCPSCOPE_WRITE_TYPES=1 cargo test -p mcpscope-inspect --test
// tests typescript::`; CI fails when this file differs from a regeneration.
import type { ApiErrorBody, AuthState, AuthStored, AuthSummary, CatalogEntry, Era, FrameDirection, FrameMeta, FrameSource, HistoryStatus, Json, SecretStoreView, ServerStatus, Transport, Verdict } from '../utils/types';

export type JsonValue = Json;

export type WebEvent = { "event": "status", "data": ServerView } | { "event": "frame", "data": FrameView } | { "event": "progress", "data": ProgressEvent } | { "event": "log", "data": LogEvent } | { "event": "notification", "data": NotificationEvent } | { "event": "serverRequest", "data": ServerRequestEvent } | { "event": "history", "data": HistoryEntry } | { "event": "warning", "data": WarningEvent } | { "event": "reset", "data": ResetEvent } | { "event": "catalog", "data": CatalogEvent } | { "event": "auth", "data": AuthView } | { "event": "resync", "data": ResyncEvent } | { "event": "interactionOpened", "data": Interaction } | { "event": "interactionClosed", "data": InteractionClosed };

export type ServerView = { 
/**
 * Its name in the catalog.
 */
name: string, 
/**
 * Its `mcp.json` entry.
 */
entry: CatalogEntry, 
/**
 * `stdio`, `http` or `sse`.
 */
transport: Transport, 
/**
 * The command line or URL, as text.
 */
target: string, 
/**
 * The status dot.
 */
status: ServerStatus, 
/**
 * Why the last connection failed (`ApiErrorBody`).
 */
error: ApiErrorBody | null, 
/**
 * The last ping's round trip, while connected.
 */
latencyMs: number | null, 
/**
 * The era, while connected.
 */
era: Era | null, 
/**
 * The negotiated protocol version, while connected.
 */
protocolVersion: string | null, };

export type FrameView = { 
/**
 * The body as text (UTF-8), cut to the view cap; null when it is not UTF-8.
 */
text: string | null, 
/**
 * The body as Base64 when it is not UTF-8.
 */
base64: string | null, 
/**
 * The whole body's length in bytes.
 */
size: number, 
/**
 * True when `text`/`base64` hold only the head of the body.
 */
truncated: boolean, seq: number, server: string, timeUs: number, direction: FrameDirection, kind: string, source: FrameSource, meta: FrameMeta, message: 'request' | 'response' | 'notification' | 'error' | 'batch' | 'invalid' | null, method: string | null, id: number | string | null, durationMs: number | null, lint: Array<LintFinding> | null, headers: HeaderVerdicts | null, 
/**
 * The history entry this frame belongs to, when known.
 */
historyId?: number, };

export type FrameHead = { seq: number, server: string, timeUs: number, direction: FrameDirection, kind: string, source: FrameSource, meta: FrameMeta, message: 'request' | 'response' | 'notification' | 'error' | 'batch' | 'invalid' | null, method: string | null, id: number | string | null, durationMs: number | null, lint: Array<LintFinding> | null, headers: HeaderVerdicts | null, 
/**
 * The history entry this frame belongs to, when known.
 */
historyId?: number, };

export type LintFinding = { path: string, message: string, };

export type HeaderVerdicts = { 
/**
 * Every request header as sent (credentials redacted).
 */
request: Array<[string, string]>, 
/**
 * The response status, once it arrived.
 */
status: number | null, 
/**
 * The `Mcp-*` headers of the response.
 */
mirrored: Array<[string, string]>, 
/**
 * The first row that disagrees, in words.
 */
firstDisagreement: string | null, 
/**
 * One row per cross-checked header.
 */
rows: Array<HeaderRow>, 
/**
 * The exchange answered 4xx/5xx or failed at the transport level.
 */
failed: boolean, 
/**
 * The transport failure, when there was one.
 */
transportError?: string, };

export type HeaderRow = { 
/**
 * Header name as sent (or as it should have been sent).
 */
header: string, 
/**
 * What the body says the value should be (decoded).
 */
expected: string | null, 
/**
 * What was sent (decoded).
 */
sent: string | null, 
/**
 * `ok`, `mismatch`, `missing`, `undeclared` or `unchecked`.
 */
verdict: Verdict, 
/**
 * Why, when the verdict needs a reason.
 */
note?: string, };

export type ProgressEvent = { 
/**
 * The server.
 */
server: string, 
/**
 * The id the page chose for the request; null for requests no page made.
 */
requestId: string | null, 
/**
 * The request's history entry.
 */
historyId: number | null, 
/**
 * The request's method.
 */
method: string, 
/**
 * `progress`.
 */
progress: number, 
/**
 * `total`, if given.
 */
total: number | null, 
/**
 * `message`, if given.
 */
message: string | null, };

export type LogEvent = { 
/**
 * The server.
 */
server: string, 
/**
 * Severity.
 */
level: string, 
/**
 * Logger name.
 */
logger: string | null, 
/**
 * Payload.
 */
data: JsonValue, 
/**
 * The request that caused it, when known.
 */
historyId: number | null, 
/**
 * When it arrived (µs since the Unix epoch).
 */
timeUs: number, };

export type NotificationEvent = { 
/**
 * The server.
 */
server: string, 
/**
 * Its method.
 */
method: string, 
/**
 * Its params.
 */
params: JsonValue | null, };

export type ServerRequestEvent = { 
/**
 * The server.
 */
server: string, 
/**
 * `sampling/createMessage`, `elicitation/create`, `roots/list`, …
 */
method: string, 
/**
 * Its params (secret values redacted).
 */
params: JsonValue, 
/**
 * Where it came from, in words (`server request 5`, `input_required round 1 of …`).
 */
origin: string, 
/**
 * `{result}` or `{error}`.
 */
answer: JsonValue, 
/**
 * The history entry of the request that caused it, when known.
 */
historyId: number | null, };

export type HistoryEntry = { 
/**
 * Its id.
 */
id: number, 
/**
 * The server.
 */
server: string, 
/**
 * The request's method.
 */
method: string, 
/**
 * The request's params.
 */
params: JsonValue, 
/**
 * `pending`, `ok`, `error` or `cancelled`.
 */
status: HistoryStatus, 
/**
 * The result (a string holding its head when `truncated`).
 */
result: JsonValue, 
/**
 * The error (`ApiErrorBody`), or null.
 */
error: ApiErrorBody | Json, 
/**
 * When it started (RFC 3339).
 */
startedAt: string, 
/**
 * When it started (µs since the Unix epoch).
 */
startedAtUs: number, 
/**
 * How long it took; null while pending.
 */
durationMs: number | null, 
/**
 * Kept past retention.
 */
pinned: boolean, 
/**
 * The pin's label.
 */
label: string | null, 
/**
 * The era of the connection it went over.
 */
era: Era | null, 
/**
 * The entry this one is part of (a page of a paginated list, an interaction's cause).
 */
parentId: number | null, 
/**
 * The id the page chose, for Cancel.
 */
requestId: string | null, 
/**
 * The result was cut to the view cap.
 */
truncated: boolean, 
/**
 * The whole result's length in bytes.
 */
resultSize: number, 
/**
 * In detail only: what the request caused, in order.
 */
children?: Array<HistoryChild>, 
/**
 * In detail only: the traffic `seq`s of its frames.
 */
frames?: Array<number>, };

export type HistoryChild = { 
/**
 * What it is.
 */
kind: string, 
/**
 * When, in ms after the request started.
 */
offsetMs: number, 
/**
 * Its body.
 */
data: JsonValue, };

export type WarningEvent = { 
/**
 * The server.
 */
server: string, 
/**
 * What happened.
 */
message: string, 
/**
 * The frame it is about (its traffic `seq`).
 */
frameSeq: number | null, };

export type ResetEvent = { 
/**
 * The server whose screens start over.
 */
server: string, };

export type CatalogEvent = { 
/**
 * Every server card, in catalog order.
 */
servers: Array<ServerView>, };

export type AuthView = { 
/**
 * The server.
 */
server: string, 
/**
 * OAuth applies (HTTP/SSE without its own `Authorization` header).
 */
applies: boolean, 
/**
 * `none`, `authorizing`, `authorized` or `failed`.
 */
state: AuthState, 
/**
 * A login waiting for a person.
 */
pending: AuthPending | null, 
/**
 * What the flow established (never the token itself).
 */
summary: AuthSummary | null, 
/**
 * Why the last authorization failed.
 */
error: string | null, 
/**
 * Where tokens are kept.
 */
secretStore: SecretStoreView | null, 
/**
 * The redirect URI logins use.
 */
callbackUrl: string, 
/**
 * `GET …/auth` and forgetting only: the grant the secret store holds (null: none).
 */
stored?: AuthStored | null, };

export type AuthPending = { 
/**
 * Its id.
 */
id: string, 
/**
 * The authorization URL.
 */
url: string, 
/**
 * The authorization server.
 */
issuer: string | null, 
/**
 * The scopes asked for.
 */
scopes: Array<string>, 
/**
 * `login` or `step-up`.
 */
reason: 'login' | 'step-up', 
/**
 * When it started (RFC 3339).
 */
startedAt: string, };

export type ResyncEvent = { 
/**
 * How many events the view missed.
 */
missed: number, };

export type Interaction = { 
/**
 * Its id (for [`InteractionQueue::answer`]).
 */
id: number, 
/**
 * The server that asks.
 */
server: string, 
/**
 * The history entry of the request that caused it, when known.
 */
historyId: number | null, 
/**
 * What it asks for.
 */
kind: InteractionKind, 
/**
 * The method as the server sent it.
 */
method: string, 
/**
 * The request's params (secret values redacted once a connection's pipeline saw it).
 */
payload: JsonValue, 
/**
 * Where it came from, in words (`server request 5`, `input_required round 1 of …`).
 */
origin: string, 
/**
 * The `input_required` round (1-based); null for a legacy server request.
 */
round: number | null, 
/**
 * When it opened (µs since the Unix epoch).
 */
openedAtUs: number, 
/**
 * When it times out (µs since the Unix epoch).
 */
deadlineUs: number, };

export type InteractionKind = "sampling" | "elicitationForm" | "elicitationUrl" | "roots" | "other";

export type InteractionClosed = { 
/**
 * The interaction's id.
 */
id: number, 
/**
 * The server that asked.
 */
server: string, 
/**
 * The history entry of the request that caused it, when known.
 */
historyId: number | null, 
/**
 * What it asked for.
 */
kind: InteractionKind, 
/**
 * The method as the server sent it.
 */
method: string, 
/**
 * The `input_required` round; null for a legacy server request.
 */
round: number | null, 
/**
 * How it ended.
 */
outcome: Outcome, 
/**
 * Why, for `timedOut` and `abandoned` (and who answered otherwise).
 */
reason: string | null, 
/**
 * What the server got: `{result}` or `{error}`.
 */
answer: JsonValue, };

export type Outcome = "accepted" | "declined" | "cancelled" | "timedOut" | "abandoned";
