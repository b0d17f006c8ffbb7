// Every key of one `input_required` round as ONE dialog (issue 9: "several keys in one round are
// walked one at a time and submitted together"): "key 1 of 3" with the key's name, Back and Next,
// each key's own answer controls (a form's Accept reads "Next", the last one "Submit all"), and
// the answers sent together once the last key is answered — the engine retries only when it has
// all of them anyway, but a half-answered round must not look done. Decline and Cancel answer
// the key they are on and move on like Next; every form keeps what was typed when going Back.

import { Alert, Badge, Button, Card, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { Interaction } from '../../../generated/events';
import type { InteractionAnswer } from '../../../utils/interactions';
import { keyOf } from '../../../utils/rounds';
import type { FormField, Json, JsonObject } from '../../../utils/types';
import { AnswerControls, InteractionBody, InteractionHeader } from './InteractionCard';

export interface RoundDialogProps {
  /** The round's questions that arrived, in the engine's key order. */
  items: Interaction[];
  /** How many keys the round holds (`roundKeys`; more may still be on their way). */
  keys: number;
  /** Place of the dialog in its queue, and the queue's length. */
  place: number;
  total: number;
  serverInfo: JsonObject | null;
  onAnswer: (id: number, answer: InteractionAnswer) => Promise<boolean>;
  onFormModel: (schema: Json) => Promise<FormField>;
}

function answerWord(a: InteractionAnswer | undefined): string {
  return a ? (a.action === 'accept' ? 'answered' : `${a.action}d`) : 'not answered yet';
}

export function RoundDialog({ items, keys, place, total, serverInfo, onAnswer, onFormModel }: RoundDialogProps) {
  const [step, setStep] = useState(0);
  const [answers, setAnswers] = useState<Record<number, InteractionAnswer>>({});
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const n = Math.max(keys, items.length);
  const at = Math.min(step, items.length - 1);
  const current = items[at];
  const last = at === n - 1;

  const submit = async (all: Record<number, InteractionAnswer>) => {
    setBusy(true);
    setFailed(null);
    const refused: string[] = [];
    // In the engine's key order; each success closes its question (an event removes it).
    for (const i of items) if (!(await onAnswer(i.id, all[i.id]))) refused.push(keyOf(i) ?? `#${i.id}`);
    if (refused.length > 0) {
      setFailed(`Not accepted by the backend: ${refused.join(', ')} (see the message above); the others were sent.`);
      setBusy(false);
    }
  };
  const record = (i: Interaction, a: InteractionAnswer) => {
    const all = { ...answers, [i.id]: a };
    setAnswers(all);
    const done = items.length === n && items.every((x) => all[x.id] !== undefined);
    if (done) void submit(all);
    else if (at < items.length - 1) setStep(at + 1);
  };

  return (
    <Card withBorder p="sm" data-testid="round-dialog" data-round={current.round ?? ''} data-keys={n} data-step={at + 1} data-server={current.server}>
      <Stack gap="xs">
        {/* "1 of 1" beside "key 3 of 3" read as a count of keys: the queue place only when there is a queue. */}
        <InteractionHeader interaction={current} serverInfo={serverInfo} place={total > 1 ? `${place} of ${total}` : undefined} />
        <Group gap="xs" wrap="nowrap" data-testid="round-steps">
          <Badge color="orange" variant="light" tt="none" data-testid="round-step">
            key {at + 1} of {n}
          </Badge>
          {items.map((i, k) => (
            <Badge key={i.id} variant={k === at ? 'filled' : 'outline'} color={answers[i.id] ? 'green' : 'gray'} tt="none" ff="monospace" title={answerWord(answers[i.id])} data-testid="round-key" data-key={keyOf(i) ?? ''} data-answered={answers[i.id] ? 'true' : 'false'}>
              {keyOf(i) ?? `#${i.id}`}
            </Badge>
          ))}
        </Group>
        {items.map((i, k) => (
          // Every key stays mounted (hidden when not current), so Back finds what was typed.
          <div key={i.id} hidden={k !== at} data-testid="interaction" data-id={i.id} data-kind={i.kind} data-round={i.round ?? ''} data-key={keyOf(i) ?? ''}>
            <Stack gap="xs">
              <InteractionBody interaction={i} />
              <AnswerControls interaction={i} onAnswer={(a) => record(i, a)} onFormModel={onFormModel} busy={busy} acceptLabel={k === n - 1 ? 'Submit all' : 'Next'} />
            </Stack>
          </div>
        ))}
        {items.length < n && at === items.length - 1 && answers[current.id] && (
          <Text size="xs" c="dimmed" data-testid="round-waiting">
            Waiting for the other {n - items.length} key{n - items.length > 1 ? 's' : ''} of this round to arrive…
          </Text>
        )}
        {failed && (
          <Alert color="red" p={6} data-testid="round-failed">
            <Text size="xs">{failed}</Text>
          </Alert>
        )}
        <Group gap="xs" justify="space-between">
          <Button variant="subtle" size="compact-sm" onClick={() => setStep(at - 1)} disabled={at === 0 || busy} data-testid="round-back">
            ‹ Back
          </Button>
          <Text size="xs" c="dimmed">
            {last ? 'Answering this key sends all the answers.' : 'The answers are sent together after the last key.'}
          </Text>
          <Button variant="subtle" size="compact-sm" onClick={() => setStep(at + 1)} disabled={at >= items.length - 1 || !answers[current.id] || busy} data-testid="round-next">
            Next ›
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
