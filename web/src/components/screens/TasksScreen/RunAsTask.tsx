import { Alert, Checkbox, Code, Group, NumberInput, Text, Tooltip } from '@mantine/core';
import { api, ApiError, newRequestId } from '../../../lib/api';
import type { CallHandle, Json } from '../../../utils/types';

/** The Tools screen's "Run as task" choice: off, or on with a TTL in ms (null: the server's). */
export interface TaskChoice {
  on: boolean;
  ttlMs: number | null;
}

export const NO_TASK: TaskChoice = { on: false, ttlMs: 60_000 };

/** "Run as task" with its TTL, beside the Execute button. The TTL travels as `params.task.ttl`
 *  on 2025-11-25; the 2026-07-28 extension has none (the server chooses it, and decides per
 *  call whether to answer with a task). */
export function RunAsTask({ value, onChange }: { value: TaskChoice; onChange: (v: TaskChoice) => void }) {
  return (
    <Group gap={6} wrap="nowrap" data-testid="run-as-task">
      <Tooltip label="tools/call as a task: followed in Tasks (2025-11-25: params.task; 2026-07-28: the server decides)" withinPortal>
        <Checkbox size="xs" label="Run as task" checked={value.on} onChange={(e) => onChange({ ...value, on: e.currentTarget.checked })} data-testid="run-as-task-toggle" />
      </Tooltip>
      {value.on && (
        <NumberInput
          size="xs"
          w={130}
          min={0}
          step={1000}
          placeholder="server's"
          rightSection="ms"
          aria-label="Task TTL (ms)"
          value={value.ttlMs ?? ''}
          onChange={(v) => onChange({ ...value, ttlMs: typeof v === 'number' ? v : null })}
          data-testid="task-ttl"
        />
      )}
    </Group>
  );
}

/** Run `tool` as a task on `server`, as a handle the Tools screen waits on like any call. */
export function runAsTask(server: string, tool: string, args: Json, ttlMs: number | null): CallHandle {
  const requestId = newRequestId();
  const done = api.runTask(server, tool, args, ttlMs, requestId).then(
    (r) => ({ ok: true as const, historyId: r.historyId, result: r.result }),
    (e: unknown) => ({ ok: false as const, error: e instanceof ApiError ? e.body : { code: 'internal', message: String(e) } }),
  );
  return { requestId, done };
}

/** Under a `tools/call` result that is a task (either era's shape): its id and where to follow
 *  it, since the result itself has no content to show. */
export function TaskCreated({ result }: { result: Json }) {
  const r = (result ?? {}) as { resultType?: unknown; taskId?: unknown; status?: unknown; task?: { taskId?: unknown; status?: unknown } };
  const task = r.resultType === 'task' ? r : r.task;
  if (!task || typeof task.taskId !== 'string') return null;
  return (
    <Alert color="blue" p="xs" title="The server runs this call as a task" data-testid="task-created" data-task-id={task.taskId}>
      <Text size="xs">
        Task <Code>{task.taskId}</Code> is {String(task.status ?? 'created')}; the Tasks screen follows it to its result.
      </Text>
    </Alert>
  );
}
