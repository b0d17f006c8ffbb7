// The body of 003's "Sampling Request" card: what the server asks the client's model (its
// messages, model preferences, system prompt, max tokens, stop sequences, temperature,
// include-context, tools), and the answer written by hand — a "Response" text, the model and
// the stop reason — sent with Send Response or refused with Reject Request. Every server string
// is React text; media only from the data: URLs utils/sampling.ts builds.

import { Autocomplete, Badge, Button, Code, Group, ScrollArea, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useCallback, useMemo, useRef, useState } from 'react';
import type { InteractionAnswer } from '../../../utils/interactions';
import { DEFAULT_MODEL, DEFAULT_STOP_REASON, MAX_MESSAGES, STOP_REASONS, messageCount, samplingResult, samplingView, type SamplingBlock } from '../../../utils/sampling';
import type { Prefill } from '../../../utils/profiles';
import type { Json } from '../../../utils/types';
import { SamplingProfileBar } from '../TestingProfiles/SamplingProfileBar';

export interface SamplingRequestProps {
  id: number;
  /** The server that asks (its Testing Profile choice is shown and used). */
  server: string;
  payload: Json;
  onAnswer: (a: InteractionAnswer) => void;
  busy: boolean;
}

function Block({ b }: { b: SamplingBlock }) {
  if (b.kind === 'text') {
    return (
      <Text size="sm" className="mcpscope-elicit-message" data-testid="sampling-text">
        {b.text}
      </Text>
    );
  }
  if ((b.kind === 'image' || b.kind === 'audio') && b.src) {
    return b.kind === 'image' ? (
      <img src={b.src} alt={`image (${b.mimeType})`} style={{ maxWidth: '100%', maxHeight: 240 }} data-testid="sampling-image" />
    ) : (
      <audio controls src={b.src} data-testid="sampling-audio" />
    );
  }
  return (
    <Stack gap={2} data-testid="sampling-json">
      <Text size="xs" c="dimmed">
        {b.kind === 'json' ? `${b.type} block` : `${b.kind} that is not base64 data of an ${b.kind} type: not drawn`}
      </Text>
      <Code block>{b.json}</Code>
    </Stack>
  );
}

function Field({ label, testId, children }: { label: string; testId: string; children: React.ReactNode }) {
  return (
    <Group gap={6} align="flex-start" wrap="nowrap" data-testid={testId}>
      <Text size="xs" c="dimmed" w={120} style={{ flexShrink: 0 }}>
        {label}
      </Text>
      <div style={{ minWidth: 0, flex: 1 }}>{children}</div>
    </Group>
  );
}

/** The request's parameters below its messages (only those it gives). */
function Params({ payload }: { payload: Json }) {
  const v = useMemo(() => samplingView(payload), [payload]);
  const mono = (s: string) => (
    <Text size="xs" ff="monospace" className="mcpscope-elicit-message">
      {s}
    </Text>
  );
  return (
    <Stack gap={4} data-testid="sampling-params">
      {v.systemPrompt !== null && <Field label="System prompt" testId="sampling-system-prompt">{mono(v.systemPrompt)}</Field>}
      {v.maxTokens !== null && <Field label="Max tokens" testId="sampling-max-tokens">{mono(String(v.maxTokens))}</Field>}
      {v.temperature !== null && <Field label="Temperature" testId="sampling-temperature">{mono(String(v.temperature))}</Field>}
      {v.stopSequences.length > 0 && <Field label="Stop sequences" testId="sampling-stop-sequences">{mono(v.stopSequences.map((s) => JSON.stringify(s)).join(', '))}</Field>}
      {v.includeContext !== null && <Field label="Include context" testId="sampling-include-context">{mono(v.includeContext)}</Field>}
      {v.modelPreferences !== null && <Field label="Model preferences" testId="sampling-model-preferences"><Code block>{v.modelPreferences}</Code></Field>}
      {v.tools !== null && <Field label="Tools" testId="sampling-tools"><Code block>{v.tools}</Code></Field>}
      {v.toolChoice !== null && <Field label="Tool choice" testId="sampling-tool-choice"><Code block>{v.toolChoice}</Code></Field>}
    </Stack>
  );
}

function Messages({ payload }: { payload: Json }) {
  const v = useMemo(() => samplingView(payload), [payload]);
  const total = messageCount(payload);
  return (
    <ScrollArea.Autosize mah={360} type="auto">
      <Stack gap={6} data-testid="sampling-messages" data-count={total}>
        {v.messages.length === 0 && (
          <Text size="xs" c="red">
            The request holds no messages.
          </Text>
        )}
        {v.messages.map((m, k) => (
          <Stack gap={2} key={k} data-testid="sampling-message" data-role={m.role}>
            <Badge size="xs" variant="light" color={m.role === 'assistant' ? 'grape' : 'blue'} tt="none">
              {m.role}
            </Badge>
            {m.blocks.map((b, j) => (
              <Block b={b} key={j} />
            ))}
          </Stack>
        ))}
        {total > MAX_MESSAGES && (
          <Text size="xs" c="dimmed">
            and {total - MAX_MESSAGES} more messages (not drawn).
          </Text>
        )}
      </Stack>
    </ScrollArea.Autosize>
  );
}

export function SamplingRequest({ id, server, payload, onAnswer, busy }: SamplingRequestProps) {
  const [text, setText] = useState('');
  const [model, setModel] = useState(DEFAULT_MODEL);
  const [stopReason, setStopReason] = useState(DEFAULT_STOP_REASON);
  // The active Testing Profile's answer fills the editor until the user types in it.
  const edited = useRef(false);
  const prefill = useCallback((p: Prefill | null) => {
    if (edited.current || !p) return;
    setText(p.text);
    setModel(p.model);
    setStopReason(p.stopReason);
  }, []);
  return (
    <Stack gap="xs" data-testid="sampling-request">
      <Messages payload={payload} />
      <Params payload={payload} />
      <SamplingProfileBar id={id} server={server} onPrefill={prefill} busy={busy} />
      <Textarea
        id={`sampling-response-${id}`}
        label="Response"
        description="The assistant message sent back as the model's answer (text)."
        value={text}
        onChange={(e) => {
          edited.current = true;
          setText(e.currentTarget.value);
        }}
        autosize
        minRows={3}
        maxRows={12}
        data-testid="sampling-response"
      />
      <Group gap="xs" grow>
        <TextInput label="Model" value={model} onChange={(e) => setModel(e.currentTarget.value)} data-testid="sampling-model" />
        <Autocomplete label="Stop reason" value={stopReason} onChange={setStopReason} data={STOP_REASONS} data-testid="sampling-stop-reason" />
      </Group>
      <Group gap="xs" justify="flex-end">
        <Button variant="light" color="red" onClick={() => onAnswer({ action: 'decline' })} disabled={busy} data-testid="sampling-reject">
          Reject Request
        </Button>
        <Button onClick={() => onAnswer({ action: 'accept', content: samplingResult({ text, model, stopReason }) })} loading={busy} data-testid="sampling-send">
          Send Response
        </Button>
      </Group>
    </Stack>
  );
}
