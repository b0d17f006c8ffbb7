// One running MCP App: reads its checked UI resource from the backend, frames the sandbox proxy
// (another origin: the app never runs on the UI's), and wires the pure HostBridge (utils/apps.ts)
// to the page: the iframe's messages, the Traffic recording, the server calls, the confirmation
// modal, the model panel, the size and display mode. `data-app-status` says where it is.

import { ActionIcon, Alert, Badge, Button, Group, Modal, ScrollArea, Stack, Text, Title, Tooltip, useComputedColorScheme } from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import {
  HostBridge,
  TEARDOWN_MS,
  modelMayCall,
  type AppResource,
  type AppTool,
  type DisplayMode,
  type DownloadItem,
  type HostEnv,
  type HostEvent,
  type ServerAnswer,
} from '../../../utils/apps';
import type { CallHandle, Json, JsonObject } from '../../../utils/types';

/** What the frame needs from the backend, bound to its server. */
export interface AppActions {
  about: () => Promise<{ version: string; sandbox?: { url: string } | null }>;
  resource: (tool: string) => Promise<AppResource>;
  /** An MCP request of the app (`origin: {app}`). */
  request: (app: string, method: string, params: JsonObject) => Promise<ServerAnswer>;
  /** The tool run that opens the app (a normal tools/call: History and Traffic). */
  launch: (tool: string, args: Json, asApp: boolean) => CallHandle;
  cancel: (requestId: string) => Promise<boolean>;
  record: (body: { app: string; instance: string; direction: 'toApp' | 'fromApp'; message: string; historyId?: number; note?: string }) => Promise<unknown>;
}

export type AppStatus = 'loading' | 'ready' | 'error';

export interface AppFrameProps {
  app: AppTool;
  args: JsonObject;
  actions: AppActions;
  maximized: boolean;
  hasInputs: boolean;
  onToggleMaximize: () => void;
  /** The app is gone (closed or back to the form), after its teardown. */
  onExit: (to: 'close' | 'back') => void;
  onShowInHistory: (id: number) => void;
}

type Ask = { kind: 'open-link'; url: string } | { kind: 'download'; items: DownloadItem[] };

interface Note {
  at: number;
  method: string;
  params: JsonObject;
}

/** Characters of one recorded message (UTF-8 may triple them; the route takes 2 MB). */
const RECORD_MAX = 600_000;

function newInstance(tool: string) {
  return `${tool}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

function errorText(e: unknown): string {
  if (e && typeof e === 'object' && 'body' in e) {
    const b = (e as { body: { code?: string; message?: string } }).body;
    return `${b.code ?? 'error'}: ${b.message ?? ''}`;
  }
  return e instanceof Error ? e.message : String(e);
}

function saveItems(items: DownloadItem[]) {
  for (const it of items) {
    if (it.link) {
      window.open(it.link, '_blank', 'noopener,noreferrer');
      continue;
    }
    const bytes = it.blob !== undefined ? Uint8Array.from(atob(it.blob), (c) => c.charCodeAt(0)) : new TextEncoder().encode(it.text ?? '');
    const url = URL.createObjectURL(new Blob([bytes], { type: it.mimeType || 'application/octet-stream' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = it.name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

/** The running app, its header (Back to Input, maximize, Close) and its side panel. */
export function AppFrame(p: AppFrameProps) {
  const scheme = useComputedColorScheme('light');
  const [status, setStatus] = useState<AppStatus>('loading');
  const [error, setError] = useState<string | null>(null);
  const [res, setRes] = useState<AppResource | null>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [height, setHeight] = useState<number | null>(null);
  const [mode, setMode] = useState<DisplayMode>('inline');
  const [notes, setNotes] = useState<Note[]>([]);
  const [hostNotes, setHostNotes] = useState<string[]>([]);
  const [dropped, setDropped] = useState(0);
  const [ask, setAsk] = useState<(Ask & { resolve: (yes: boolean) => void }) | null>(null);
  const [closing, setClosing] = useState(false);
  const [historyId, setHistoryId] = useState<number | null>(null);
  const iframe = useRef<HTMLIFrameElement | null>(null);
  const box = useRef<HTMLDivElement | null>(null);
  const bridge = useRef<HostBridge | null>(null);
  const launch = useRef<CallHandle | null>(null);
  const instance = useMemo(() => newInstance(p.app.tool), [p.app.tool]);
  const a = p.actions;

  const note = (t: string) => setHostNotes((n) => [...n.slice(-49), t]);
  // The frame's size as last seen on screen. On a hidden tab (display: none) the box measures
  // 0 × 0: that is not a size the app can draw in, so the app keeps hearing the last real one.
  const size = useRef({ width: 800, height: 600 });
  const measure = () => {
    const el = box.current;
    if (el && el.clientWidth > 0 && el.clientHeight > 0) size.current = { width: Math.round(el.clientWidth), height: Math.round(el.clientHeight) };
    return size.current;
  };
  const env = (): HostEnv => ({
    version: versionRef.current,
    theme: scheme === 'dark' ? 'dark' : 'light',
    locale: navigator.language || 'en-US',
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    userAgent: navigator.userAgent,
    ...measure(),
    touch: typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches,
    hover: typeof matchMedia === 'function' && matchMedia('(hover: hover)').matches,
  });
  const versionRef = useRef('');

  // Open: about (sandbox URL, version), the resource, then the bridge and the frame.
  useEffect(() => {
    let live = true;
    const chain = { p: Promise.resolve() as Promise<unknown> };
    // Recorded in order, one POST after the other.
    const record = (direction: 'toApp' | 'fromApp', message: string, hid?: number, n?: string) => {
      // The route takes 2 MB of body: a long text (the resource-ready HTML, up to 5 MiB) is cut here, and says so.
      const cut = message.length > RECORD_MAX;
      const body = { app: p.app.tool, instance, direction, message: cut ? message.slice(0, RECORD_MAX) : message, historyId: hid, note: cut ? [n, `cut by the page to ${RECORD_MAX} of ${message.length} characters`].filter(Boolean).join('; ') : n };
      chain.p = chain.p.then(() => a.record(body).catch(() => null));
    };
    void (async () => {
      try {
        const about = await a.about();
        versionRef.current = about.version;
        if (!about.sandbox?.url) throw new Error('this mcpscope runs no sandbox listener (MCP_SANDBOX_PORT): apps cannot be shown');
        const r = await a.resource(p.app.tool);
        if (!live) return;
        setRes(r);
        const b = new HostBridge(
          {
            post: (m) => iframe.current?.contentWindow?.postMessage(m, new URL(about.sandbox!.url).origin),
            record,
            server: (method, params) => a.request(p.app.tool, method, params),
            confirm: (what) => new Promise<boolean>((resolve) => setAsk({ ...what, resolve })),
            openLink: (url) => window.open(url, '_blank', 'noopener,noreferrer'),
            download: saveItems,
            event: (e) => live && onEvent(e),
            now: () => Date.now(),
          },
          env(),
          { name: p.app.tool, title: p.app.title, description: p.app.description, inputSchema: p.app.inputSchema ?? undefined },
          { html: r.html, csp: r.csp, allow: r.allow },
        );
        b.setToolInput(p.args);
        bridge.current = b;
        startTool(b);
        // The proxy page carries the app's CSP too: the app is same-origin with it (issue 24 item 26).
        setSrc(`${about.sandbox.url}?host=${encodeURIComponent(location.origin)}&csp=${encodeURIComponent(r.csp)}`);
      } catch (e) {
        if (!live) return;
        setError(errorText(e));
        setStatus('error');
      }
    })();
    return () => {
      live = false;
      bridge.current?.close();
      if (launch.current) void a.cancel(launch.current.requestId);
    };
    // One open per mount: the parent remounts (key) for another app or other arguments.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // The tool runs while the app loads; its result waits until the app is initialized.
  const pendingResult = useRef<{ result?: JsonObject; historyId?: number; cancelled?: string } | null>(null);
  const deliver = (b: HostBridge) => {
    const r = pendingResult.current;
    if (!r || b.phase !== 'ready') return;
    pendingResult.current = null;
    if (r.cancelled !== undefined) b.toolCancelled(r.cancelled);
    else b.toolResult(r.result ?? {}, r.historyId);
  };
  const startTool = (b: HostBridge) => {
    const h = a.launch(p.app.tool, p.args, !modelMayCall(p.app.visibility));
    launch.current = h;
    void h.done.then((o) => {
      launch.current = null;
      if (o.ok) {
        setHistoryId(o.historyId);
        pendingResult.current = { result: (o.result ?? {}) as JsonObject, historyId: o.historyId };
      } else if (o.error.code === 'cancelled') {
        pendingResult.current = { cancelled: 'the call was cancelled' };
      } else {
        if (typeof o.error.historyId === 'number') setHistoryId(o.error.historyId);
        note(`the tool call failed: ${o.error.message}`);
        pendingResult.current = { result: { isError: true, content: [{ type: 'text', text: o.error.message }] }, historyId: o.error.historyId };
      }
      deliver(b);
    });
  };

  function onEvent(e: HostEvent) {
    switch (e.type) {
      case 'ready':
        setStatus('ready');
        if (bridge.current) queueMicrotask(() => bridge.current && deliver(bridge.current));
        return;
      case 'size':
        if (e.height !== undefined) setHeight(e.height);
        return;
      case 'size-ignored':
        note(e.reason);
        return;
      case 'display-mode':
        setMode(e.mode);
        return;
      case 'model-note':
        setNotes((n) => [...n.slice(-49), { at: Date.now(), method: e.method, params: e.params }]);
        return;
      case 'dropped':
        setDropped((d) => d + e.count);
        note(e.reason);
        return;
      case 'teardown-requested':
        note('the app asked to be closed');
        void exit('close');
        return;
    }
  }

  // The iframe's messages: only from our frame's window and the sandbox origin.
  useEffect(() => {
    if (!src) return;
    const origin = new URL(src).origin;
    const onMessage = (ev: MessageEvent) => {
      if (ev.source !== iframe.current?.contentWindow || ev.origin !== origin) return;
      bridge.current?.receive(ev.data);
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [src]);

  // Theme and size follow the page (host-context-changed).
  useEffect(() => {
    bridge.current?.contextChanged(env());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [scheme]);
  useEffect(() => {
    const el = box.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    let t: ReturnType<typeof setTimeout> | null = null;
    const ro = new ResizeObserver(() => {
      if (t) clearTimeout(t);
      t = setTimeout(() => bridge.current?.contextChanged(env()), 150);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      if (t) clearTimeout(t);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [src]);
  useEffect(() => bridge.current?.setMode(mode), [mode]);

  const closingRef = useRef(false);
  const askRef = useRef(ask);
  askRef.current = ask;
  async function exit(to: 'close' | 'back') {
    if (closingRef.current) return;
    closingRef.current = true;
    setClosing(true);
    const b = bridge.current;
    askRef.current?.resolve(false);
    setAsk(null);
    if (launch.current) void a.cancel(launch.current.requestId);
    const outcome = b ? await b.teardown(to === 'close' ? 'closed by the user' : 'back to the input form') : 'answered';
    if (outcome !== 'answered') note(outcome === 'timeout' ? `the app did not answer ui/resource-teardown in ${TEARDOWN_MS / 1000} s: torn down anyway` : 'the app answered ui/resource-teardown with an error: torn down anyway');
    // Let the note be seen (and asserted) a moment when the app did not answer.
    setTimeout(() => p.onExit(to), outcome === 'answered' ? 0 : 600);
  }

  const frameStyle: React.CSSProperties =
    mode === 'fullscreen'
      ? { position: 'fixed', inset: 0, width: '100vw', height: '100vh', zIndex: 300, background: 'var(--mantine-color-body)' }
      : mode === 'pip'
        ? { position: 'fixed', right: 16, bottom: 16, width: 420, height: 320, zIndex: 300, boxShadow: 'var(--mantine-shadow-lg)', background: 'var(--mantine-color-body)' }
        : { width: '100%', height: height ?? '100%', minHeight: height ?? 400 };
  const border = res?.prefersBorder === false ? 'none' : '1px solid var(--mantine-color-default-border)';

  return (
    <Stack gap="xs" h="100%" p="sm" data-testid="app-panel" data-app-status={status} data-app={p.app.tool} data-instance={instance} data-mode={mode} data-closing={closing ? 'true' : 'false'}>
      <Group justify="space-between" wrap="nowrap">
        <Group gap="xs" wrap="nowrap" miw={0}>
          <Title order={5} style={{ whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}>
            {p.app.title ?? p.app.tool}
          </Title>
          <Badge size="sm" color={status === 'ready' ? 'green' : status === 'error' ? 'red' : 'blue'} variant="light">
            {closing ? 'closing…' : status}
          </Badge>
          {dropped > 0 && (
            <Badge size="sm" color="orange" data-testid="app-dropped" data-count={dropped}>
              {dropped} dropped
            </Badge>
          )}
          {historyId !== null && (
            <Button size="compact-xs" variant="subtle" onClick={() => p.onShowInHistory(historyId)} data-testid="app-history-link">
              tools/call in History
            </Button>
          )}
        </Group>
        <Group gap={4} wrap="nowrap">
          {p.hasInputs && (
            <Button size="compact-xs" variant="default" onClick={() => void exit('back')} disabled={closing} data-testid="app-back">
              Back to Input
            </Button>
          )}
          <Tooltip label={p.maximized ? 'Show the app list' : 'Maximize (hide the app list)'}>
            <Button size="compact-xs" variant="default" onClick={p.onToggleMaximize} aria-label={p.maximized ? 'Restore' : 'Maximize'} data-testid="app-maximize" data-maximized={p.maximized ? 'true' : 'false'}>
              {p.maximized ? 'Restore' : 'Maximize'}
            </Button>
          </Tooltip>
          <Tooltip label="Close the app (ui/resource-teardown)">
            <ActionIcon variant="default" onClick={() => void exit('close')} disabled={closing} aria-label="Close app" data-testid="app-close">
              ✕
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
      {res && res.warnings.length > 0 && (
        <Alert color="yellow" p={4} data-testid="app-warnings">
          {res.warnings.map((w, i) => (
            <Text size="xs" key={i}>
              {w}
            </Text>
          ))}
        </Alert>
      )}
      {status === 'error' && (
        <Alert color="red" title="The app cannot be shown" data-testid="app-error">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {error}
          </Text>
        </Alert>
      )}
      <Group align="stretch" gap="xs" wrap="nowrap" className="mcpscope-grow">
        <div ref={box} className="mcpscope-grow mcpscope-scroll" style={{ minHeight: 0 }}>
          {src && (
            <div style={frameStyle} data-testid="app-frame-box">
              {mode !== 'inline' && (
                <Group justify="flex-end" p={4} style={{ position: 'absolute', right: 4, top: 4, zIndex: 1 }}>
                  <Button size="compact-xs" onClick={() => setMode('inline')} data-testid="app-inline">
                    Back inline
                  </Button>
                </Group>
              )}
              <iframe
                ref={iframe}
                src={src}
                title={`MCP App ${p.app.tool}`}
                sandbox="allow-scripts allow-same-origin"
                allow={res?.allow || undefined}
                referrerPolicy="no-referrer"
                style={{ width: '100%', height: '100%', border, display: 'block', colorScheme: 'normal' }}
                data-testid="app-frame"
                data-height={height ?? ''}
              />
            </div>
          )}
        </div>
        <ScrollArea w={280} type="auto" data-testid="app-side">
          <Stack gap={6}>
            <Text size="xs" fw={600}>
              Model panel
            </Text>
            <Text size="xs" c="dimmed">
              No model here: this is what the app would tell it.
            </Text>
            <div data-testid="app-model-panel" data-count={notes.length}>
              {notes.length === 0 ? (
                <Text size="xs" c="dimmed">
                  Nothing yet.
                </Text>
              ) : (
                notes.map((n, i) => (
                  <Stack gap={0} key={i} data-testid="app-model-note" data-method={n.method}>
                    <Text size="xs" ff="monospace" fw={600}>
                      {n.method}
                    </Text>
                    <pre className="mcpscope-pre">{JSON.stringify(n.params, null, 1).slice(0, 2000)}</pre>
                  </Stack>
                ))
              )}
            </div>
            <Text size="xs" fw={600} mt="xs">
              Host notes
            </Text>
            <div data-testid="app-notes" data-count={hostNotes.length}>
              {hostNotes.map((t, i) => (
                <Text size="xs" key={i} data-testid="app-note" style={{ overflowWrap: 'anywhere' }}>
                  {t}
                </Text>
              ))}
            </div>
            {res && (
              <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="app-csp">
                CSP: {res.csp}
              </Text>
            )}
          </Stack>
        </ScrollArea>
      </Group>
      <Modal
        opened={ask !== null}
        onClose={() => {
          ask?.resolve(false);
          setAsk(null);
        }}
        title={ask?.kind === 'download' ? 'The app wants to save a file' : 'The app wants to open a link'}
        data-testid="app-confirm"
      >
        {ask?.kind === 'open-link' && (
          <Text size="sm" className="mcpscope-url" data-testid="app-confirm-url">
            {ask.url}
          </Text>
        )}
        {ask?.kind === 'download' &&
          ask.items.map((it, i) => (
            <Text size="sm" key={i} style={{ overflowWrap: 'anywhere' }}>
              {it.name} ({it.mimeType || 'unknown type'}){it.link ? ` → ${it.link}` : ''}
            </Text>
          ))}
        <Group justify="flex-end" mt="md">
          <Button
            variant="default"
            data-testid="app-confirm-no"
            onClick={() => {
              ask?.resolve(false);
              setAsk(null);
            }}
          >
            Refuse
          </Button>
          <Button
            data-testid="app-confirm-yes"
            onClick={() => {
              ask?.resolve(true);
              setAsk(null);
            }}
          >
            {ask?.kind === 'download' ? 'Save' : 'Open'}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
