import { Alert, Checkbox, Code, Group, NumberInput, Text, Tooltip } from '@mantine/core';
import { api, ApiError, newRequestId } from '../../../lib/api';
import type { CallHandle, Json } from '../../../utils/types';

/** The Tools screen's "Run as task" choice: off, or on with a TTL in ms (null: the server's). */
export interface TaskChoice {
  on: boolean;
  ttlMs: number | null;
}

export const NO_TASK: TaskChoice = { on: false, ttlMs: 60_000 };

/** A tool's `execution.taskSupport` (2025-11-25): `forbidden` when absent, as the spec says. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

export function taskSupport(tool: { execution?: unknown } | null): TaskSupport {
  const v = (tool?.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return v === 'optional' || v === 'required' ? v : 'forbidden';
}

/** The choice a call of `tool` starts with: on when the tool runs only as a task. The choice
 *  belongs to one tool's calls, so picking another tool never carries it over. */
export function defaultTaskChoice(tool: { execution?: unknown } | null): TaskChoice {
  return { ...NO_TASK, on: taskSupport(tool) === 'required' };
}

/** What "Run as task" means for a tool, in a line under the checkbox. */
function supportNote(support: TaskSupport, on: boolean): string | null {
  if (support === 'required') return on ? 'This tool runs only as a task (execution.taskSupport: required).' : 'This tool runs only as a task (execution.taskSupport: required): called normally, the server refuses it (-32601).';
  if (support === 'optional') return null;
  return on ? 'The tool does not declare task support (execution.taskSupport absent or forbidden): a 2025-11-25 server refuses it; a 2026-07-28 server decides.' : null;
}

/** "Run as task" with its TTL, beside the Execute button. The TTL travels as `params.task.ttl`
 *  on 2025-11-25; the 2026-07-28 extension has none (the server chooses it, and decides per
 *  call whether to answer with a task). */
export function RunAsTask({ value, onChange, support = 'forbidden' }: { value: TaskChoice; onChange: (v: TaskChoice) => void; support?: TaskSupport }) {
  const note = supportNote(support, value.on);
  return (
    <Group gap={6} wrap="wrap" data-testid="run-as-task" data-support={support}>
      <Tooltip label="tools/call as a task: followed in Tasks (2025-11-25: params.task; 2026-07-28: the server decides)" withinPortal>
        <Checkbox
          size="xs"
          label={support === 'forbidden' ? 'Run as task' : `Run as task (${support})`}
          checked={value.on}
          onChange={(e) => onChange({ ...value, on: e.currentTarget.checked })}
          data-testid="run-as-task-toggle"
        />
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
      {note && (
        <Text size="xs" c={support === 'required' && !value.on ? 'orange' : 'dimmed'} w="100%" data-testid="task-support-note">
          {note}
        </Text>
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
