import { Alert, Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { Interaction, ServerRequestEvent } from '../../../generated/events';
import { shortText, summary } from '../../../utils/interactions';
import { api } from '../../../lib/api';
import type { ApiErrorBody, JsonObject } from '../../../utils/types';
import { DownloadButton } from '../../elements/DownloadButton/DownloadButton';
import { JsonView } from '../../elements/JsonView/JsonView';
import { TruncatedText } from '../../elements/TruncatedText/TruncatedText';
import { ToolResult } from '../../groups/ToolResult/ToolResult';
import { answeredOf, answerText, durationText, interactionsOf, isToolResult, pollingText, statusColor, ttlText, type TaskDetail, type TaskSupport, type TaskView } from './tasks';

export interface TaskDetailPaneProps {
  server: string;
  task: TaskView;
  support: TaskSupport | null;
  interactions: Interaction[];
  /** The server requests this page saw answered (those of this task are listed with it). */
  serverRequests: ServerRequestEvent[];
  busy: string | null;
  onAct: (what: string, f: () => Promise<unknown>) => Promise<void>;
  onShowInHistory: (id: number) => void;
}

/** One task: its fields as the server sent them, how it is followed, its result when done (the
 *  tool's result view, or JSON; a big one previewed with a download), the questions it asks,
 *  and Get / Get result / Cancel. */
export function TaskDetailPane({ server, task: t, support, interactions, serverRequests, busy, onAct, onShowInHistory }: TaskDetailPaneProps) {
  const [detail, setDetail] = useState<TaskDetail | null>(null);
  // Re-read the detail whenever the backend heard something new of the task.
  useEffect(() => {
    let live = true;
    api.task(server, t.taskId).then(
      (d) => live && setDetail(d),
      () => live && setDetail(null),
    );
    return () => {
      live = false;
    };
  }, [server, t.taskId, t.updatedUs, t.hasResult, t.hasError]);
  const questions = interactionsOf(interactions, server, t.taskId);
  const answered = answeredOf(serverRequests, server, t.taskId);
  const canCancel = !t.terminal && (support?.cancel ?? false);
  return (
    <Stack gap="sm" p="sm" data-testid="task-detail" data-task-id={t.taskId} data-status={t.status}>
      <Group justify="space-between">
        <Title order={5} ff="monospace">
          {t.taskId}
        </Title>
        <Badge color={statusColor(t)} size="lg" data-testid="task-detail-status">
          {t.status || '(no status)'}
        </Badge>
      </Group>
      <Group gap="xs">
        <Button size="compact-sm" variant="default" loading={busy === 'Get'} onClick={() => void onAct('Get', () => api.getTask(server, t.taskId))} data-testid="task-get">
          Get (tasks/get)
        </Button>
        <Button size="compact-sm" variant="default" loading={busy === 'Get result'} disabled={!t.terminal} onClick={() => void onAct('Get result', () => api.taskResult(server, t.taskId))} data-testid="task-get-result">
          Get result ({support?.era === 'modern' ? 'tasks/get' : 'tasks/result'})
        </Button>
        <Button size="compact-sm" color="red" variant="light" loading={busy === 'Cancel'} disabled={!canCancel} onClick={() => void onAct('Cancel', () => api.cancelTask(server, t.taskId))} data-testid="task-cancel">
          Cancel
        </Button>
        {t.historyId !== null && (
          <Button size="compact-sm" variant="subtle" onClick={() => onShowInHistory(t.historyId!)}>
            Show the call in History
          </Button>
        )}
      </Group>
      <Table withRowBorders={false} verticalSpacing={2} data-testid="task-fields">
        <Table.Tbody>
          <Row k="Status message" v={t.statusMessage ?? '—'} />
          <Row k="Created" v={t.createdAt ?? '—'} />
          <Row k="Last updated" v={t.lastUpdatedAt ?? '—'} />
          <Row k="TTL" v={ttlText(t.ttlMs)} />
          <Row k="Poll interval" v={t.pollIntervalMs === undefined ? 'not given' : typeof t.pollIntervalMs === 'number' ? durationText(t.pollIntervalMs) : JSON.stringify(t.pollIntervalMs)} />
          <Row k="Polling" v={pollingText(t.polling, t.pollIntervalMs)} testId="task-detail-polling" />
          <Row k="Origin" v={t.tool ? `tools/call ${t.tool}` : t.source} />
        </Table.Tbody>
      </Table>
      {t.problems.length > 0 && (
        <Alert color="orange" p="xs" title="What the server sent is off" data-testid="task-problems">
          {t.problems.map((m, i) => (
            <Text size="xs" key={i}>
              {m}
            </Text>
          ))}
        </Alert>
      )}
      {(questions.length > 0 || t.inputRequests.length > 0) && (
        <Alert color="yellow" p="xs" title={`The task asks (${questions.length || t.inputRequests.length})`} data-testid="task-questions">
          {questions.map((q) => (
            <Text size="xs" key={q.id} data-testid="task-question" data-id={q.id}>
              #{q.id} {shortText(q.method, 60)} · {shortText(summary(q), 120)} · {shortText(q.origin, 120)} — waiting: answer it in the Pending Client Requests dialog (the badge on the top bar)
            </Text>
          ))}
          {questions.length === 0 && <Text size="xs">input requests: {t.inputRequests.join(', ')}</Text>}
        </Alert>
      )}
      {answered.length > 0 && (
        <Stack gap={2} data-testid="task-answered">
          <Title order={6}>What the task asked ({answered.length})</Title>
          {answered.map((r, k) => (
            <Text size="xs" key={k} data-testid="task-answered-row">
              {shortText(r.method, 60)} · {shortText(r.origin, 120)} → {shortText(answerText(r.answer), 200)}
            </Text>
          ))}
        </Stack>
      )}
      <Outcome server={server} task={t} detail={detail} onShowInHistory={onShowInHistory} />
      <Title order={6}>The task as the server last sent it</Title>
      <JsonView value={detail?.raw ?? null} testId="task-raw" filename={`task-${t.taskId}.json`} />
    </Stack>
  );
}

function Row({ k, v, testId }: { k: string; v: string; testId?: string }) {
  return (
    <Table.Tr>
      <Table.Td w={140}>
        <Text size="xs" c="dimmed">
          {k}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="xs" data-testid={testId} style={{ wordBreak: 'break-word' }}>
          {v}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

/** The result or error, when there is one. */
function Outcome({ server, task: t, detail, onShowInHistory }: { server: string; task: TaskView; detail: TaskDetail | null; onShowInHistory: (id: number) => void }) {
  if (!detail || (!t.hasResult && !t.hasError)) {
    return t.terminal ? (
      <Text size="sm" c="dimmed" data-testid="task-no-result">
        {t.status === 'cancelled' ? 'Cancelled: the task produced no result.' : 'The task ended; no result yet (Get result asks for it).'}
      </Text>
    ) : null;
  }
  const url = api.taskResultUrl(server, t.taskId);
  const size = t.resultBytes !== null ? ` (${t.resultBytes.toLocaleString()} bytes)` : '';
  return (
    <Stack gap="xs" data-testid="task-result">
      <Group justify="space-between">
        <Title order={6}>Result{size}</Title>
        <DownloadButton filename={`task-${t.taskId}-result.json`} url={url} testId="task-result-download" />
      </Group>
      {detail.resultPreview !== null ? (
        <TruncatedText text={detail.resultPreview} filename={`task-${t.taskId}-result.json`} fullUrl={url} serverTruncated />
      ) : isToolResult(detail.result) ? (
        <ToolResult outcome={{ kind: 'result', result: detail.result, durationMs: 0 }} outputCheck={null} onClear={() => undefined} onShowInHistory={onShowInHistory} />
      ) : detail.result !== null ? (
        <JsonView value={detail.result} fullUrl={url} />
      ) : null}
      {detail.error !== null && <ErrorView error={detail.error as JsonObject} cancelled={t.status === 'cancelled'} />}
    </Stack>
  );
}

/** A failed task's error; a cancelled one's is what `tasks/result` answered for it (the
 *  spec's answer to a cancelled task is an error), shown as the cancellation it is. */
function ErrorView({ error, cancelled }: { error: JsonObject; cancelled: boolean }) {
  const e = error as unknown as ApiErrorBody & { code?: unknown };
  return (
    <Alert
      color={cancelled ? 'gray' : 'red'}
      p="xs"
      title={cancelled ? 'Cancelled: no result (what the server answered for it)' : "The task's error"}
      data-testid={cancelled ? 'task-cancelled' : 'task-error'}
    >
      <Text size="xs">{typeof e.message === 'string' ? e.message : JSON.stringify(error)}</Text>
      {typeof e.code !== 'undefined' && <Text size="xs">code: {String(e.rpcCode ?? e.code)}</Text>}
    </Alert>
  );
}
