import { Alert, Badge, Button, Group, Progress, ScrollArea, Splitter, Stack, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Interaction, ServerRequestEvent } from '../../../generated/events';
import { api, ApiError } from '../../../lib/api';
import type { ProgressEvent } from '../../../utils/types';
import { VirtualList } from '../../elements/VirtualList/VirtualList';
import { TaskDetailPane } from './TaskDetailPane';
import { applyPage, pollingText, progressOf, splitTasks, statusColor, timingText, ttlText, type TaskView, type TasksPage } from './tasks';

export interface TasksScreenProps {
  server: string;
  /** Shown now: the backend's tasks are read only while it is. */
  visible: boolean;
  /** The version of the server's last `tasks` event (pushed): what changed since the page's
   *  version is read when it moves. */
  pushedVersion: number;
  /** The server's connection status: a change re-reads every task (support, stale rows). */
  status: string;
  /** Every question waiting for an answer (those of a task are shown with it). */
  interactions: Interaction[];
  /** The server requests answered so far (a task's are listed in its detail). */
  serverRequests: ServerRequestEvent[];
  /** Progress of the calls this page made, by request id (a task's creating call). */
  progress: Record<string, ProgressEvent>;
  onShowInHistory: (id: number) => void;
}

/** Changes come as `tasks` events; this slow read (`?since=`, nothing sent when nothing
 *  changed, no request to the MCP server) only covers an event stream that was down. */
const FALLBACK_READ_MS = 10_000;

type Item = { header: string; testId: string } | { task: TaskView };

/** Tasks: every task this inspector created or a server listed, followed by the backend at the
 *  server's poll interval (bounded); detail with the result; Get, Get result, Cancel. */
export function TasksScreen(p: TasksScreenProps) {
  const [page, setPage] = useState<TasksPage | null>(null);
  // An action's failure stays until the next action; a failed read until the next read.
  const [error, setError] = useState<string | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [typedId, setTypedId] = useState('');
  const version = useRef<number | undefined>(undefined);

  // One read at a time; a read asked for meanwhile runs after it (a delta needs the version
  // the previous read left).
  const reading = useRef<Promise<void> | null>(null);
  const read = useCallback(
    async (full: boolean) => {
      while (reading.current) await reading.current;
      const once = (async () => {
        try {
          const held = version.current;
          const next = full || held === undefined ? await api.tasks(p.server, held) : await api.tasksChanged(p.server, held);
          setReadError(null);
          if (next.unchanged) return;
          version.current = next.version;
          setPage((prev) => applyPage(prev?.server === p.server ? prev : null, next));
        } catch (e) {
          setReadError(e instanceof Error ? e.message : String(e));
        }
      })();
      reading.current = once;
      await once;
      reading.current = null;
    },
    [p.server],
  );

  useEffect(() => {
    if (!p.visible) return;
    version.current = undefined;
    void read(true);
    // Only what changed since the version held (a full read of 10,000 tasks is megabytes).
    const t = setInterval(() => void read(false), FALLBACK_READ_MS);
    return () => clearInterval(t);
  }, [p.visible, p.status, read]);

  useEffect(() => {
    if (p.visible && version.current !== undefined && p.pushedVersion !== version.current) void read(false);
  }, [p.visible, p.pushedVersion, read]);

  /** A request on the wire (list, get, …); its answer is in the next snapshot. */
  const act = async (what: string, f: () => Promise<unknown>) => {
    setBusy(what);
    try {
      await f();
      setError(null);
    } catch (e) {
      setError(e instanceof ApiError ? `${what}: ${e.message}${e.body.rpcCode !== undefined ? ` (JSON-RPC ${e.body.rpcCode})` : ''}` : String(e));
    } finally {
      setBusy(null);
      void read(false);
    }
  };

  const { active, ended } = useMemo(() => splitTasks(page?.tasks ?? []), [page]);
  // The clock the elapsed times read: it ticks only while a task runs and the screen shows.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!p.visible || active.length === 0) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [p.visible, active.length]);
  const dismiss = (ids?: string[]) => void act(ids ? 'Dismiss' : 'Clear History', () => api.dismissTasks(p.server, ids));
  const items = useMemo<Item[]>(
    () => [
      { header: `Active Tasks (${active.length})`, testId: 'active-tasks' },
      ...active.map((task) => ({ task })),
      { header: `Completed Tasks (${ended.length})`, testId: 'ended-tasks' },
      ...ended.map((task) => ({ task })),
    ],
    [active, ended],
  );
  const support = page?.support;
  const chosen = selected ? page?.tasks.find((t) => t.taskId === selected) ?? null : null;

  const list = (
    <Stack gap="xs" h="100%" p="xs" data-testid="task-list-pane">
      <Group justify="space-between">
        <Title order={5}>Tasks</Title>
        <Button size="compact-sm" variant="default" loading={busy === 'Refresh'} disabled={!support?.era} onClick={() => void act('Refresh', () => api.listTasks(p.server))} data-testid="tasks-refresh">
          Refresh
        </Button>
      </Group>
      <Text size="xs" c="dimmed" data-testid="tasks-support">
        {supportText(page)}
      </Text>
      <Group gap="xs" wrap="nowrap">
        <TextInput size="xs" placeholder="Task id" value={typedId} onChange={(e) => setTypedId(e.currentTarget.value)} style={{ flex: 1 }} data-testid="task-id-input" />
        <Button
          size="compact-sm"
          variant="default"
          disabled={!typedId.trim() || !support?.era}
          loading={busy === 'Get'}
          onClick={() => {
            const id = typedId.trim();
            void act('Get', () => api.getTask(p.server, id)).then(() => setSelected(id));
          }}
          data-testid="task-id-get"
        >
          Get
        </Button>
      </Group>
      {error && (
        <Alert color="red" p="xs" data-testid="tasks-error">
          {error}
        </Alert>
      )}
      {readError && (
        <Alert color="red" p="xs" data-testid="tasks-read-error">
          Reading the tasks failed: {readError}
        </Alert>
      )}
      {page && page.omitted > 0 && (
        <Alert color="yellow" p="xs" data-testid="tasks-omitted">
          The server reported {page.omitted.toLocaleString()} more tasks than the {page.tasks.length.toLocaleString()} kept.
        </Alert>
      )}
      {/* A flex column, so the list gets a bounded height and renders only what is visible
          (10,000 listed tasks drew every row and froze the page). */}
      <div className="mcpscope-grow mcpscope-scroll-host">
        <VirtualList
          count={items.length}
          estimate={96}
          testId="task-list"
          rowKey={(i) => {
            const it = items[i];
            return 'header' in it ? it.testId : it.task.taskId;
          }}
          row={(i) => {
            const it = items[i];
            if ('header' in it)
              return (
                <Group justify="space-between" pt="xs">
                  <Text size="sm" fw={600} data-testid={it.testId}>
                    {it.header}
                  </Text>
                  {it.testId === 'ended-tasks' && ended.length > 0 && (
                    <Button size="compact-xs" variant="subtle" loading={busy === 'Clear History'} onClick={() => dismiss()} data-testid="tasks-clear-history">
                      Clear History
                    </Button>
                  )}
                </Group>
              );
            return (
              <TaskRow
                task={it.task}
                now={now}
                progress={it.task.requestId ? p.progress[it.task.requestId] : undefined}
                selected={it.task.taskId === selected}
                onSelect={() => setSelected(it.task.taskId)}
                onDismiss={() => dismiss([it.task.taskId])}
              />
            );
          }}
        />
      </div>
    </Stack>
  );

  return (
    <Splitter className="mcpscope-fill" data-testid="screen-tasks" data-state={page ? 'ready' : 'loading'} data-version={page?.version ?? ''}>
      <Splitter.Pane defaultSize={45} min={25}>
        {list}
      </Splitter.Pane>
      <Splitter.Pane defaultSize={55} min={25}>
        <ScrollArea h="100%" type="auto">
          {chosen ? (
            <TaskDetailPane
              server={p.server}
              task={chosen}
              support={support ?? null}
              interactions={p.interactions}
              serverRequests={p.serverRequests}
              busy={busy}
              onAct={act}
              onShowInHistory={p.onShowInHistory}
            />
          ) : (
            <Text size="sm" c="dimmed" p="md" data-testid="task-detail-empty">
              {page && page.tasks.length === 0 ? 'No tasks yet. Run a tool with "Run as task" on Tools, or Refresh.' : 'Choose a task to see its details and result.'}
            </Text>
          )}
        </ScrollArea>
      </Splitter.Pane>
    </Splitter>
  );
}

/** What the connection can do with tasks, and the bounds on polling. */
function supportText(page: TasksPage | null): string {
  if (!page) return 'Loading…';
  const s = page.support;
  if (!s.era) return 'Not connected.';
  const bounds = `Polling follows the server's interval, never faster than ${page.minPollMs} ms nor slower than ${page.maxPollMs / 1000} s.`;
  if (!s.tasks) return `The server declares no tasks (${s.era === 'legacy' ? 'capabilities.tasks' : 'the io.modelcontextprotocol/tasks extension'}). ${bounds}`;
  if (s.era === 'legacy')
    return `2025-11-25 core tasks: tasks/list ${s.list ? 'yes' : 'no'}, tasks/cancel ${s.cancel ? 'yes' : 'no'}, tools/call as a task ${s.toolCall ? 'yes' : 'no'}. ${bounds}`;
  return `2026-07-28 tasks extension: no tasks/list, so these are the tasks this inspector created or fetched. ${bounds}`;
}

interface TaskRowProps {
  task: TaskView;
  /** The clock elapsed times read (ms since the epoch). */
  now: number;
  progress?: ProgressEvent;
  selected: boolean;
  onSelect: () => void;
  /** Forget this ended task (no request). */
  onDismiss: () => void;
}

function TaskRow({ task: t, now, progress, selected, onSelect, onDismiss }: TaskRowProps) {
  const bar = progressOf(t, progress);
  return (
    <Stack
      gap={2}
      p="xs"
      mb={4}
      onClick={onSelect}
      style={{ cursor: 'pointer', border: '1px solid var(--mantine-color-default-border)', borderRadius: 4, background: selected ? 'var(--mantine-color-default-hover)' : undefined }}
      data-testid="task-row"
      data-task-id={t.taskId}
      data-status={t.status}
    >
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" ff="monospace" truncate="end">
          Task: {t.taskId}
        </Text>
        <Group gap={4} wrap="nowrap">
          {!t.knownStatus && (
            <Badge size="xs" color="orange" variant="outline" title="not one of working, input_required, completed, failed, cancelled">
              not in the spec
            </Badge>
          )}
          <Badge size="sm" color={statusColor(t)} data-testid="task-status">
            {t.status || '(no status)'}
          </Badge>
        </Group>
      </Group>
      {bar && (
        <Group gap="xs" wrap="nowrap" data-testid="task-progress" data-pct={bar.pct}>
          <Progress value={bar.pct} size="sm" style={{ flex: 1 }} aria-label={`Task progress ${bar.text}`} />
          <Text size="xs" c="dimmed">
            {bar.text}
          </Text>
        </Group>
      )}
      <Text size="xs" c="dimmed" truncate="end">
        {t.tool ? `tools/call ${t.tool}` : t.source === 'listed' ? 'listed by the server' : 'fetched by id'} · TTL {ttlText(t.ttlMs)}
      </Text>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="xs" c="dimmed" truncate="end" data-testid="task-timing">
          {timingText(t, now)}
        </Text>
        {t.terminal && (
          <Button
            size="compact-xs"
            variant="subtle"
            color="gray"
            onClick={(e) => {
              e.stopPropagation();
              onDismiss();
            }}
            data-testid="task-dismiss"
          >
            Dismiss
          </Button>
        )}
      </Group>
      {(t.statusMessage || bar?.message) && (
        <Text size="xs" truncate="end" data-testid="task-status-message">
          {[t.statusMessage, bar?.message].filter(Boolean).join(' · ')}
        </Text>
      )}
      <Text size="xs" c={t.polling.state === 'stopped' ? 'orange' : 'dimmed'} truncate="end" data-testid="task-polling">
        {t.stale ? 'from an earlier connection; ' : ''}
        {pollingText(t.polling, t.pollIntervalMs)}
      </Text>
    </Stack>
  );
}
