import { Anchor, Badge, Code, Group, Stack, Text } from '@mantine/core';
import { api } from '../../../lib/api';
import { outcomeBadge, rpcErrorLine, type SendResult } from '../../../utils/experimental';
import { bytes } from '../../../utils/format';
import { JsonView } from '../../elements/JsonView/JsonView';
import { TruncatedText } from '../../elements/TruncatedText/TruncatedText';

/**
 * What came back for one send, as what it is: a result or a JSON-RPC error (its code's name), a
 * reply frame, silence, or the engine's error — with the timing and what went on the wire. A
 * large answer arrives cut by the backend and is drawn as text with a link to the whole; every
 * string from the server is React text, never markup.
 */
export function SendResponse({ result: r }: { result: SendResult }) {
  const badge = outcomeBadge(r.outcome);
  const rpc = rpcErrorLine(r);
  return (
    <Stack gap="xs" data-testid="exp-response" data-outcome={r.outcome} data-history-id={r.historyId}>
      <Group gap="sm">
        <Text fw={600}>Response</Text>
        <Badge color={badge.color} data-testid="exp-outcome">
          {badge.word}
        </Badge>
        <Text size="sm" c="dimmed" data-testid="exp-duration">
          {r.durationMs.toFixed(1)} ms
        </Text>
        {r.id !== undefined && r.id !== null && (
          <Text size="sm" c="dimmed">
            id <Code>{JSON.stringify(r.id)}</Code>
          </Text>
        )}
        <Text size="sm" c="dimmed">
          {r.era} · history #{r.historyId}
        </Text>
      </Group>
      <Text size="sm" data-testid="exp-summary">
        {r.summary}
      </Text>
      {rpc && (
        <Text size="sm" c="red" fw={600} data-testid="exp-rpc-error" data-code={r.rpcError?.code}>
          {rpc}
        </Text>
      )}
      {r.response && <JsonView value={r.response} expandAll filename={`response-${r.historyId}.json`} testId="exp-response-json" />}
      {r.truncated && r.responseText !== undefined && (
        <>
          <Text size="xs" c="dimmed" data-testid="exp-response-cut">
            The answer is {bytes(r.responseSize ?? 0)}; the first {bytes(r.responseText.length)} are shown.{' '}
            <Anchor href={api.historyResultUrl(r.historyId)} download={`result-${r.historyId}.json`} size="xs">
              The whole result
            </Anchor>
          </Text>
          <TruncatedText text={r.responseText} serverTruncated fullUrl={api.historyResultUrl(r.historyId)} filename={`result-${r.historyId}.json`} />
        </>
      )}
      {r.reply && (
        <Stack gap={4} data-testid="exp-reply">
          <Text size="xs" c="dimmed">
            Frame #{r.reply.seq} ({r.reply.kind}
            {r.reply.meta?.status ? `, HTTP ${r.reply.meta.status}` : ''}):
          </Text>
          <TruncatedText text={r.reply.text ?? `(${bytes(r.reply.size)} that are not UTF-8)`} serverTruncated={r.reply.truncated} filename={`frame-${r.reply.seq}.txt`} />
        </Stack>
      )}
      {r.error && (
        <Text size="sm" c="red" data-testid="exp-failure" data-code={r.error.code}>
          {r.error.code}: {r.error.message}
        </Text>
      )}
      {r.sent && (
        <details data-testid="exp-sent">
          <summary>
            <Text span size="xs" c="dimmed">
              Sent ({bytes(r.sent.size)})
            </Text>
          </summary>
          <TruncatedText text={r.sent.text} serverTruncated={r.sent.truncated} filename={`sent-${r.historyId}.txt`} />
        </details>
      )}
    </Stack>
  );
}
