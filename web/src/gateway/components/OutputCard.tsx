// The Output card (002): the server result, the JSON-RPC request and response, the HTTP status
// and the elapsed time; for a prompt, the rendered messages with Copy and a size estimate. A
// result of `resultType: "input_required"` is shown as Input required, left incomplete (no
// continuation), with the raw response kept. Everything from the gateway is drawn as text.
import { Alert, Badge, Button, Card, Group, Stack, Tabs, Text } from '@mantine/core';
import type { Json, JsonObject } from '../../utils/types';
import { CopyValue } from '../../components/elements/CopyValue/CopyValue';
import { JsonView } from '../../components/elements/JsonView/JsonView';
import { TruncatedText } from '../../components/elements/TruncatedText/TruncatedText';
import { ContentBlocks } from '../../components/groups/ContentBlocks/ContentBlocks';
import { messagesText, tokenEstimate } from '../present';
import type { Output } from '../useGateway';

const OUTCOME: Record<Output['outcome'], { label: string; color: string }> = {
  ok: { label: 'Success', color: 'green' },
  'tool-error': { label: 'Tool error (isError)', color: 'red' },
  'input-required': { label: 'Input required', color: 'yellow' },
  'session-expired': { label: 'Session expired', color: 'yellow' },
  error: { label: 'Error', color: 'red' },
};

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function OutputCard({ output, onClear }: { output?: Output; onClear: () => void }) {
  if (!output) {
    return (
      <Card withBorder data-testid="output-card" data-empty="true">
        <Text size="sm" c="dimmed">
          Output: nothing run yet.
        </Text>
      </Card>
    );
  }
  const ex = output.exchange;
  const result = ex?.response?.result;
  const o = OUTCOME[output.outcome];
  return (
    <Card withBorder data-testid="output-card" data-outcome={output.outcome} data-what={output.what}>
      <Stack gap="xs">
        <Group gap="xs">
          <Text fw={600} size="sm">
            Output · {output.name}
          </Text>
          <Badge color={o.color} variant="filled" data-testid="output-outcome">
            {o.label}
          </Badge>
          <Badge variant="outline" color="gray" data-testid="output-status">
            HTTP {ex?.status ?? '—'}
          </Badge>
          <Badge variant="outline" color="gray" data-testid="output-elapsed">
            {ex ? `${Math.round(ex.elapsedMs)} ms` : '—'}
          </Badge>
          {ex?.streamed && (
            <Badge variant="light" color="gray">
              SSE
            </Badge>
          )}
          <Button size="compact-xs" variant="subtle" ml="auto" onClick={onClear} data-testid="output-clear">
            Clear
          </Button>
        </Group>
        {output.problem && <ProblemText output={output} />}
        {output.outcome === 'input-required' && (
          <Alert color="yellow" p="xs" data-testid="input-required">
            The gateway needs more input to finish this request (resultType: input_required). It is left incomplete: no continuation
            is sent. The raw response is below.
          </Alert>
        )}
        <Tabs key={output.id} defaultValue="result" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="result" data-testid="output-tab-result">
              {output.what === 'prompt' ? 'Messages' : 'Result'}
            </Tabs.Tab>
            <Tabs.Tab value="request" data-testid="output-tab-request">
              JSON-RPC request
            </Tabs.Tab>
            <Tabs.Tab value="response" data-testid="output-tab-response">
              JSON-RPC response
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="result" pt="xs" data-testid="output-result">
            {output.outcome === 'error' || output.outcome === 'session-expired' || !isObject(result) ? (
              <Text size="sm" c="dimmed">
                No result.
              </Text>
            ) : output.outcome === 'input-required' ? (
              <JsonView value={result} />
            ) : output.what === 'prompt' ? (
              <PromptMessages result={result} />
            ) : (
              <ToolContent result={result} />
            )}
          </Tabs.Panel>
          <Tabs.Panel value="request" pt="xs" data-testid="output-request">
            {ex ? (
              <Stack gap={4}>
                <Text size="xs" c="dimmed" className="mcpscope-pre">
                  {ex.requestHeaders.map(([k, v]) => `${k}: ${v}`).join('\n')}
                </Text>
                <JsonView value={ex.request} expandAll />
              </Stack>
            ) : (
              <Text size="sm" c="dimmed">
                Nothing was sent.
              </Text>
            )}
          </Tabs.Panel>
          <Tabs.Panel value="response" pt="xs" data-testid="output-response">
            {ex?.response ? (
              <JsonView value={ex.response} expandAll />
            ) : ex?.body !== undefined ? (
              <TruncatedText text={ex.body} filename="response.txt" />
            ) : (
              <Text size="sm" c="dimmed">
                No JSON-RPC response.
              </Text>
            )}
          </Tabs.Panel>
        </Tabs>
      </Stack>
    </Card>
  );
}

function ProblemText({ output }: { output: Output }) {
  const p = output.problem!;
  const relay = p.kind === 'refused';
  return (
    <Alert color={relay ? 'orange' : p.kind === 'session-expired' ? 'yellow' : 'red'} p="xs" data-testid="output-problem" data-kind={p.kind} data-rule={p.rule}>
      <Text size="xs" fw={600}>
        {relay
          ? `Refused by mcpscope's relay, rule ${p.rule ?? '?'} (not the gateway's answer)`
          : p.kind === 'unauthorized'
            ? 'The gateway answered 401'
            : p.kind === 'session-expired'
              ? 'The session expired'
              : 'The gateway answered an error'}
      </Text>
      <Text size="xs" className="mcpscope-pre">
        {p.message}
      </Text>
    </Alert>
  );
}

function ToolContent({ result }: { result: JsonObject }) {
  const structured = result.structuredContent as Json | undefined;
  return (
    <Stack gap="xs">
      <ContentBlocks blocks={(result.content ?? []) as Json} />
      {structured !== undefined && (
        <>
          <Text size="xs" c="dimmed">
            structuredContent
          </Text>
          <JsonView value={structured} />
        </>
      )}
    </Stack>
  );
}

/** A prompt's rendered messages, Copy, and the size estimate (labelled an estimate). */
function PromptMessages({ result }: { result: JsonObject }) {
  const messages = Array.isArray(result.messages) ? result.messages : [];
  const text = messagesText(messages);
  const tokens = tokenEstimate(text);
  return (
    <Stack gap="xs">
      {messages.map((m, i) => {
        const msg = isObject(m) ? m : {};
        return (
          <Card key={i} withBorder p="xs" data-testid="prompt-message" data-role={String(msg.role)}>
            <Badge color={msg.role === 'assistant' ? 'teal' : 'blue'} mb={4}>
              {String(msg.role)}
            </Badge>
            <ContentBlocks blocks={msg.content as Json} />
          </Card>
        );
      })}
      <Group gap="xs">
        <CopyValue value={text} label="Copy" testId="copy-messages" />
        <Text size="xs" c="dimmed" data-testid="size-estimate" data-tokens={tokens} data-characters={Array.from(text).length}>
          ≈ {tokens} tokens · {Array.from(text).length} characters (an estimate at four characters per token, not a model tokenizer)
        </Text>
      </Group>
    </Stack>
  );
}
