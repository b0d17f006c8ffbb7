import { Alert, Badge, Button, Group, Stack, Tabs, Text } from '@mantine/core';
import { duration } from '../../../utils/format';
import type { ApiErrorBody, FieldError, Json, JsonObject } from '../../../utils/types';
import { CopyValue } from '../../elements/CopyValue/CopyValue';
import { JsonView } from '../../elements/JsonView/JsonView';
import { TroubleshootingLink } from '../../elements/TroubleshootingLink/TroubleshootingLink';
import { ContentBlocks } from '../ContentBlocks/ContentBlocks';

export type ToolOutcome =
  | { kind: 'result'; result: JsonObject; historyId?: number; durationMs: number }
  | { kind: 'error'; error: ApiErrorBody; durationMs: number }
  | { kind: 'cancelled'; durationMs: number };

export interface ToolResultProps {
  outcome: ToolOutcome;
  /** structuredContent checked against outputSchema (null: no outputSchema). */
  outputCheck: { errors: FieldError[]; unusable?: string } | null;
  onOpenResource?: (uri: string) => void;
  onClear: () => void;
  onShowInHistory?: (id: number) => void;
}

/** A tool's outcome: isError results apart from protocol errors; content, structured, raw. */
export function ToolResult({ outcome, outputCheck, onOpenResource, onClear, onShowInHistory }: ToolResultProps) {
  if (outcome.kind === 'cancelled') {
    return (
      <Alert color="gray" title="Cancelled" data-testid="tool-result" data-outcome="cancelled">
        The request was cancelled after {duration(outcome.durationMs)}.
        <Button size="compact-xs" variant="subtle" ml="sm" onClick={onClear}>
          Clear
        </Button>
      </Alert>
    );
  }
  if (outcome.kind === 'error') {
    const e = outcome.error;
    return (
      <Stack gap="xs" data-testid="tool-result" data-outcome="protocol-error">
        <Alert color="red" title={e.code === 'rpc_error' ? `Protocol error (JSON-RPC ${e.rpcCode ?? ''})` : `Request failed: ${e.code}`}>
          <Text size="sm" className="mcpscope-pre">
            {e.message}
          </Text>
          {e.data !== undefined && <JsonView value={e.data} />}
        </Alert>
        <Group gap="xs">
          {e.code && <TroubleshootingLink code={e.code} />}
          <Text size="xs" c="dimmed">
            {duration(outcome.durationMs)}
          </Text>
          {typeof e.historyId === 'number' && onShowInHistory && (
            <Button size="compact-xs" variant="subtle" onClick={() => onShowInHistory(e.historyId as number)}>
              View in History
            </Button>
          )}
          <Button size="compact-xs" variant="subtle" onClick={onClear}>
            Clear
          </Button>
        </Group>
      </Stack>
    );
  }
  const r = outcome.result;
  const isError = r.isError === true;
  const structured = r.structuredContent as Json | undefined;
  return (
    <Stack gap="xs" data-testid="tool-result" data-outcome={isError ? 'tool-error' : 'ok'}>
      <Group gap="xs">
        {isError ? (
          <>
            <Badge color="red" variant="filled" data-testid="is-error">
              isError: the tool reported a failure
            </Badge>
            {/* The error card's guide, for the error the CLI names tool_error (exit 5). */}
            <TroubleshootingLink code="tool_error" />
          </>
        ) : (
          <Badge color="green" variant="filled">
            success
          </Badge>
        )}
        <Text size="xs" c="dimmed" data-testid="result-duration">
          {duration(outcome.durationMs)}
        </Text>
        <CopyValue value={JSON.stringify(r, null, 2)} label="Copy" testId="copy-result" />
        {outcome.historyId !== undefined && onShowInHistory && (
          <Button size="compact-xs" variant="subtle" onClick={() => onShowInHistory(outcome.historyId as number)} data-testid="view-in-history">
            View in History
          </Button>
        )}
        <Button size="compact-xs" variant="subtle" onClick={onClear} data-testid="clear-result">
          Clear
        </Button>
      </Group>
      <Tabs defaultValue="content" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="content">Content</Tabs.Tab>
          {structured !== undefined && <Tabs.Tab value="structured">structuredContent</Tabs.Tab>}
          <Tabs.Tab value="raw">Raw</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="content" pt="xs">
          <ContentBlocks blocks={(r.content ?? []) as Json} onOpenResource={onOpenResource} />
        </Tabs.Panel>
        {structured !== undefined && (
          <Tabs.Panel value="structured" pt="xs">
            <Stack gap="xs">
              {outputCheck === null ? (
                <Text size="xs" c="dimmed">
                  The tool declares no outputSchema.
                </Text>
              ) : outputCheck.unusable ? (
                <Alert color="yellow" p="xs">
                  outputSchema cannot be used: {outputCheck.unusable}
                </Alert>
              ) : outputCheck.errors.length === 0 ? (
                <Badge color="green" data-testid="output-schema-check" data-valid="true">
                  ✓ matches outputSchema
                </Badge>
              ) : (
                <Alert color="red" p="xs" title="structuredContent does not match outputSchema" data-testid="output-schema-check" data-valid="false">
                  {outputCheck.errors.map((e, i) => (
                    <Text size="xs" key={i}>
                      {e.path || '(root)'}: {e.message}
                    </Text>
                  ))}
                </Alert>
              )}
              <JsonView value={structured} expandAll />
            </Stack>
          </Tabs.Panel>
        )}
        <Tabs.Panel value="raw" pt="xs">
          <JsonView value={r} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
