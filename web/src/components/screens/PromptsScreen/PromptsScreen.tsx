import { Alert, Badge, Button, Card, EmptyState, Group, Loader, ScrollArea, Select, Splitter, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState, type ReactNode } from 'react';
import { messagesAsText } from '../../../utils/content';
import { initialValue, promptArgumentsSchema } from '../../../utils/form';
import type { CallOutcome, FormField, Json, JsonObject, Prefill } from '../../../utils/types';
import { CopyValue } from '../../elements/CopyValue/CopyValue';
import { JsonView } from '../../elements/JsonView/JsonView';
import { ContentBlocks } from '../../groups/ContentBlocks/ContentBlocks';
import { SchemaForm } from '../../groups/SchemaForm/SchemaForm';

export interface PromptsScreenProps {
  prompts: JsonObject[] | null;
  /** The server advertises the prompts capability. */
  offered: boolean;
  listChanged: boolean;
  prefill: Prefill | null;
  onRefresh: () => void;
  onGet: (name: string, args: JsonObject) => Promise<CallOutcome>;
  onFormModel: (schema: Json) => Promise<FormField>;
  onComplete: (ref: JsonObject, argument: string, value: string, context: Record<string, string>) => Promise<string[]>;
  onOpenResource: (uri: string) => void;
  /** The questions the running prompts/get caused (the inline client request queue). */
  pending?: ReactNode;
}

type PromptArg = { name: string; description?: string; required?: boolean };

/** Prompts: picker, description, argument form with completion, messages, Copy JSON / messages. */
export function PromptsScreen(p: PromptsScreenProps) {
  const [selected, setSelected] = useState<string | null>(null);
  const [model, setModel] = useState<FormField | null>(null);
  const [args, setArgs] = useState<Json | undefined>(undefined);
  const [result, setResult] = useState<CallOutcome | null>(null);
  const [busy, setBusy] = useState(false);
  const [prefillSeen, setPrefillSeen] = useState<number | null>(null);
  const [pendingArgs, setPendingArgs] = useState<Json | undefined>(undefined);

  if (p.prefill && p.prefill.nonce !== prefillSeen) {
    setPrefillSeen(p.prefill.nonce);
    if (p.prefill.name) {
      setSelected(p.prefill.name);
      setModel(null);
      setPendingArgs(p.prefill.args ?? {});
      setResult(null);
    }
  }

  const prompts = p.prompts ?? [];
  const prompt = prompts.find((x) => x.name === selected) ?? null;
  const promptArgs = ((prompt?.arguments ?? []) as unknown as PromptArg[]) ?? [];

  useEffect(() => {
    if (!prompt) return;
    let live = true;
    p.onFormModel(promptArgumentsSchema(promptArgs)).then((m) => {
      if (!live) return;
      setModel(m);
      setArgs((a) => (pendingArgs !== undefined ? pendingArgs : a === undefined ? initialValue(m) : a));
      setPendingArgs(undefined);
    });
    return () => {
      live = false;
    };
    // The model depends only on the prompt selected.
  }, [selected, prompts.length]);

  const get = async () => {
    if (!prompt) return;
    setBusy(true);
    const clean = Object.fromEntries(Object.entries((args ?? {}) as JsonObject).filter(([, v]) => v !== '' && v !== undefined));
    setResult(await p.onGet(String(prompt.name), clean as JsonObject));
    setBusy(false);
  };

  const messages = result?.ok ? (((result.result ?? {}) as JsonObject).messages ?? []) : [];

  const left = (
    <ScrollArea h="100%" type="auto">
      <Stack gap="sm" p="sm">
        <Group justify="space-between">
          <Title order={5} data-testid="prompts-count" data-count={prompts.length}>
            Prompts ({prompts.length})
          </Title>
          <Button size="compact-xs" variant="default" onClick={p.onRefresh} data-testid="refresh-prompts">
            Refresh
          </Button>
        </Group>
        {p.listChanged && (
          <Group gap="xs" data-testid="list-changed">
            <Badge color="yellow" variant="dot">
              List updated
            </Badge>
            <Button size="compact-xs" onClick={p.onRefresh}>
              Refresh Now
            </Button>
          </Group>
        )}
        {!p.offered && (
          <Text size="sm" c="dimmed" data-testid="not-offered">
            This server does not advertise prompts.
          </Text>
        )}
        {p.prompts === null ? (
          <Loader size="sm" />
        ) : (
          <Select
            label="Select Prompt"
            placeholder="Choose a prompt"
            data={prompts.map((x) => ({ value: String(x.name), label: String(x.title ?? x.name) }))}
            value={selected}
            onChange={(v) => {
              setSelected(v);
              setModel(null);
              setArgs(undefined);
              setResult(null);
            }}
            searchable
            data-testid="prompt-select"
            comboboxProps={{ withinPortal: true }}
          />
        )}
        {prompt && (
          <Stack gap="xs" data-testid="prompt-detail" data-prompt={String(prompt.name)}>
            {typeof prompt.description === 'string' && (
              <Text size="sm" c="dimmed">
                {prompt.description}
              </Text>
            )}
            <Text size="sm" fw={600}>
              Arguments
            </Text>
            {model ? (
              <SchemaForm
                field={model}
                value={args}
                onChange={setArgs}
                complete={(key, value, all) =>
                  p.onComplete(
                    { type: 'ref/prompt', name: String(prompt.name) },
                    key,
                    value,
                    Object.fromEntries(Object.entries(all).filter(([k, v]) => k !== key && typeof v === 'string' && v !== '')) as Record<string, string>,
                  )
                }
              />
            ) : (
              <Loader size="xs" />
            )}
            <Group>
              <Button onClick={get} loading={busy} data-testid="get-prompt">
                Get Prompt
              </Button>
            </Group>
            {busy && p.pending}
          </Stack>
        )}
      </Stack>
    </ScrollArea>
  );

  const right = (
    <ScrollArea h="100%" type="auto">
      <Stack gap="sm" p="sm">
        <Title order={5}>Result</Title>
        {!result ? (
          <EmptyState title="No prompt yet" description="Choose a prompt, fill its arguments and press Get Prompt." />
        ) : !result.ok ? (
          <Alert color="red" title={result.error.code} data-testid="prompt-result" data-ok="false">
            {result.error.message}
          </Alert>
        ) : (
          <Stack gap="xs" data-testid="prompt-result" data-ok="true">
            {typeof ((result.result ?? {}) as JsonObject).description === 'string' && (
              <Text size="sm" c="dimmed">
                {String(((result.result ?? {}) as JsonObject).description)}
              </Text>
            )}
            {(Array.isArray(messages) ? messages : []).map((m, i) => {
              const msg = m as JsonObject;
              return (
                <Card key={i} data-testid="prompt-message" data-role={String(msg.role)}>
                  <Badge color={msg.role === 'assistant' ? 'teal' : 'blue'} mb={4}>
                    [{i}] role: {String(msg.role)}
                  </Badge>
                  <ContentBlocks blocks={msg.content as Json} onOpenResource={p.onOpenResource} />
                </Card>
              );
            })}
            <Group gap="xs">
              <CopyValue value={JSON.stringify(result.result, null, 2)} label="Copy JSON" testId="copy-json" />
              <CopyValue value={messagesAsText(messages as Json)} label="Copy Messages" testId="copy-messages" />
            </Group>
            <JsonView value={result.result} />
          </Stack>
        )}
      </Stack>
    </ScrollArea>
  );

  return (
    <Splitter className="mcpscope-fill" data-testid="screen-prompts">
      <Splitter.Pane defaultSize={35} min={20}>
        {left}
      </Splitter.Pane>
      <Splitter.Pane defaultSize={65} min={30}>
        {right}
      </Splitter.Pane>
    </Splitter>
  );
}
