// The gateway page's state and actions: the only place that holds a GatewayClient. 002's
// "Using the inspector" and "Authentication", step by step:
//
// - the gateway list comes from `GET /api/gateways` (only those this user may see);
// - changing the gateway clears the token, the session, the selected tool, the outputs and the
//   session statistics, then connects;
// - changing the protocol reconnects and clears the catalog, outputs and counters; the token is
//   kept for the same gateway;
// - a 401 on connect opens the bearer-token dialog; a 401 during a call, a prompt or a refresh
//   invalidates the client and opens it again;
// - an expired session shows a warning and Reconnect, which stays available after the dialog is
//   dismissed;
// - tokens and session ids live in this hook's memory only: never stored, never logged.
//
// A connection attempt carries a generation number: an answer that comes back after the user
// moved on (another gateway, another protocol) is dropped.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { Json, JsonObject } from '../utils/types';
import { GatewayClient, GatewayFailure, type Connection, type Exchange, type FailureKind, type Prompt, type Tool } from './client';
import type { ProtocolMode } from './negotiate';
import { count, NO_STATS, resultOutcome, type Outcome, type Stats } from './present';

export interface GatewayInfo {
  name: string;
  description?: string;
  url?: string;
  servers?: Record<string, string>;
}

export type Status = 'idle' | 'connecting' | 'connected' | 'failed' | 'needs-token' | 'expired';

/** What went wrong, as the page says it: whose rule (the relay's or the gateway's) and what. */
export interface Problem {
  kind: FailureKind;
  message: string;
  rule?: string;
}

/** One run's Output card. */
export interface Output {
  /** Which run this is (a new run shows its result first). */
  id?: number;
  what: 'tool' | 'prompt';
  name: string;
  outcome: Outcome;
  exchange?: Exchange;
  problem?: Problem;
}

export type PromptsState = { state: 'loading' } | { state: 'listed'; prompts: Prompt[] } | { state: 'none' } | { state: 'failed'; problem: Problem };

const problemOf = (e: unknown): Problem =>
  e instanceof GatewayFailure ? { kind: e.kind, message: e.message, rule: e.rule } : { kind: 'network', message: e instanceof Error ? e.message : String(e) };

const relayUrl = (gateway: string) => `/api/gateways/${encodeURIComponent(gateway)}/mcp`;

/** The gateway the address names (`?gateway=NAME`), else the first. */
function initialGateway(list: GatewayInfo[]): string | undefined {
  const asked = new URLSearchParams(window.location.search).get('gateway');
  return list.find((g) => g.name === asked)?.name ?? list[0]?.name;
}

async function fetchGateways(): Promise<{ gateways: GatewayInfo[]; user?: string }> {
  const res = await fetch('/api/gateways', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const o = (body ?? {}) as { gateways?: unknown; user?: { name?: unknown } | null; error?: { message?: unknown } };
  if (!res.ok) throw new Error(typeof o.error?.message === 'string' ? o.error.message : `GET /api/gateways answered HTTP ${res.status}`);
  const list = Array.isArray(o.gateways) ? o.gateways : [];
  const gateways: GatewayInfo[] = list
    .filter((g): g is JsonObject => typeof g === 'object' && g !== null && typeof (g as JsonObject).name === 'string')
    .map((g) => ({
      name: g.name as string,
      description: typeof g.description === 'string' ? g.description : undefined,
      url: typeof g.url === 'string' ? g.url : undefined,
      servers:
        typeof g.servers === 'object' && g.servers !== null && !Array.isArray(g.servers)
          ? Object.fromEntries(Object.entries(g.servers).filter((e): e is [string, string] => typeof e[1] === 'string'))
          : undefined,
    }));
  return { gateways, user: typeof o.user?.name === 'string' ? o.user.name : undefined };
}

export function useGateway() {
  const [gateways, setGateways] = useState<GatewayInfo[] | undefined>();
  const [listError, setListError] = useState<string | undefined>();
  const [user, setUser] = useState<string | undefined>();
  const [gateway, setGateway] = useState<string | undefined>();
  const [mode, setMode] = useState<ProtocolMode>('auto');
  const [token, setToken] = useState<string | undefined>();
  const [status, setStatus] = useState<Status>('idle');
  const [connection, setConnection] = useState<Connection | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  const [tools, setTools] = useState<Tool[]>([]);
  const [excluded, setExcluded] = useState<{ name: string; reason: string }[]>([]);
  const [toolsLoading, setToolsLoading] = useState(false);
  const [prompts, setPrompts] = useState<PromptsState>({ state: 'loading' });
  const [selectedTool, setSelectedTool] = useState<string | undefined>();
  const [toolOutput, setToolOutput] = useState<Output | undefined>();
  const [promptOutput, setPromptOutput] = useState<Output | undefined>();
  const [stats, setStats] = useState<Stats>(NO_STATS);
  const [tokenDialog, setTokenDialog] = useState(false);
  const [running, setRunning] = useState(false);
  const client = useRef<GatewayClient | undefined>(undefined);
  const generation = useRef(0);
  const runs = useRef(0);

  /** A failure that ends the client's usefulness: the dialog, the warning, or the error. */
  const fail = useCallback((p: Problem, connecting: boolean) => {
    setProblem(p);
    if (p.kind === 'unauthorized') {
      setStatus('needs-token');
      setTokenDialog(true);
    } else if (p.kind === 'session-expired' || p.kind === 'invalidated') {
      setStatus('expired');
    } else if (connecting) {
      setStatus('failed');
    }
  }, []);

  // The list shown stays until the new one is in (a reconnect keeps a prompt being filled in);
  // a change of gateway or protocol empties it first (clearAll).
  const loadPrompts = useCallback(async (c: GatewayClient, gen: number) => {
    if (c.connection?.capabilities && !('prompts' in c.connection.capabilities)) {
      setPrompts({ state: 'none' });
      return;
    }
    try {
      const { prompts: list } = await c.listPrompts();
      if (gen === generation.current) setPrompts(list.length > 0 ? { state: 'listed', prompts: list } : { state: 'none' });
    } catch (e) {
      if (gen !== generation.current) return;
      const rpc = e instanceof GatewayFailure && e.exchange?.response?.error;
      if (rpc && typeof rpc === 'object' && !Array.isArray(rpc) && rpc.code === -32601) setPrompts({ state: 'none' });
      else {
        setPrompts({ state: 'failed', problem: problemOf(e) });
        if (e instanceof GatewayFailure && ['unauthorized', 'session-expired'].includes(e.kind)) fail(problemOf(e), false);
      }
    }
  }, [fail]);

  const loadTools = useCallback(async (c: GatewayClient, gen: number) => {
    setToolsLoading(true);
    try {
      const list = await c.listTools();
      if (gen !== generation.current) return;
      setTools(list.tools);
      setExcluded(list.excluded);
    } catch (e) {
      if (gen === generation.current) fail(problemOf(e), false);
    } finally {
      if (gen === generation.current) setToolsLoading(false);
    }
  }, [fail]);

  /** A new client for `gw` at `m` with `tok`; the old one's legacy session is ended. */
  const connect = useCallback(
    async (gw: string, m: ProtocolMode, tok: string | undefined) => {
      const gen = ++generation.current;
      void client.current?.close();
      const c = new GatewayClient({ url: relayUrl(gw), token: tok });
      client.current = c;
      setStatus('connecting');
      setProblem(undefined);
      setConnection(undefined);
      try {
        const { connection: conn } = await c.connect(m);
        if (gen !== generation.current) return;
        setConnection(conn);
        setStatus('connected');
        await Promise.all([loadTools(c, gen), loadPrompts(c, gen)]);
      } catch (e) {
        if (gen === generation.current) fail(problemOf(e), true);
      }
    },
    [fail, loadPrompts, loadTools],
  );

  /** Forget the catalog, outputs and counters (a protocol or gateway change). */
  const clearAll = () => {
    setTools([]);
    setExcluded([]);
    setPrompts({ state: 'loading' });
    setToolOutput(undefined);
    setPromptOutput(undefined);
    setStats(NO_STATS);
  };

  useEffect(() => {
    fetchGateways()
      .then(({ gateways: list, user: u }) => {
        setGateways(list);
        setUser(u);
        const first = initialGateway(list);
        if (first) {
          setGateway(first);
          void connect(first, 'auto', undefined);
        }
      })
      .catch((e: unknown) => setListError(e instanceof Error ? e.message : String(e)));
    return () => {
      generation.current++;
      void client.current?.close();
    };
  }, [connect]);

  const selectGateway = (name: string) => {
    if (name === gateway) return;
    setGateway(name);
    setToken(undefined);
    setSelectedTool(undefined);
    setTokenDialog(false);
    clearAll();
    void connect(name, mode, undefined);
  };

  const selectMode = (m: ProtocolMode) => {
    if (m === mode || !gateway) return;
    setMode(m);
    clearAll();
    void connect(gateway, m, token);
  };

  const reconnect = () => {
    if (gateway) void connect(gateway, mode, token);
  };

  const submitToken = (t: string) => {
    setToken(t);
    setTokenDialog(false);
    if (gateway) void connect(gateway, mode, t);
  };

  const refreshTools = () => {
    const c = client.current;
    if (c && status === 'connected') void loadTools(c, generation.current);
  };

  /** Run a request of the Output card's kind and count it. */
  const run = async (what: 'tool' | 'prompt', name: string, send: (c: GatewayClient) => Promise<Exchange>) => {
    const c = client.current;
    const set = what === 'tool' ? setToolOutput : setPromptOutput;
    if (!c) return;
    const gen = generation.current;
    setRunning(true);
    try {
      const ex = await send(c);
      if (gen !== generation.current) return;
      const outcome = resultOutcome(ex.response?.result as Json | undefined);
      set({ id: ++runs.current, what, name, outcome, exchange: ex });
      setStats((s) => count(s, outcome));
    } catch (e) {
      if (gen !== generation.current) return;
      const p = problemOf(e);
      const outcome: Outcome = p.kind === 'session-expired' ? 'session-expired' : 'error';
      set({ id: ++runs.current, what, name, outcome, exchange: e instanceof GatewayFailure ? e.exchange : undefined, problem: p });
      setStats((s) => count(s, outcome));
      if (['unauthorized', 'session-expired', 'invalidated'].includes(p.kind)) fail(p, false);
    } finally {
      if (gen === generation.current) setRunning(false);
    }
  };

  const runTool = (name: string, args: JsonObject, meta: JsonObject) => run('tool', name, (c) => c.callTool(name, args, meta));
  const generatePrompt = (name: string, args: Record<string, string>) => run('prompt', name, (c) => c.getPrompt(name, args));

  return {
    gateways,
    listError,
    user,
    gateway,
    info: gateways?.find((g) => g.name === gateway),
    mode,
    hasToken: !!token,
    status,
    connection,
    problem,
    tools,
    excluded,
    toolsLoading,
    prompts,
    selectedTool,
    toolOutput,
    promptOutput,
    stats,
    tokenDialog,
    running,
    selectGateway,
    selectMode,
    reconnect,
    submitToken,
    dismissToken: () => setTokenDialog(false),
    openTokenDialog: () => setTokenDialog(true),
    refreshTools,
    selectTool: setSelectedTool,
    runTool,
    generatePrompt,
    clearToolOutput: () => setToolOutput(undefined),
    clearPromptOutput: () => setPromptOutput(undefined),
  };
}

export type GatewayState = ReturnType<typeof useGateway>;
