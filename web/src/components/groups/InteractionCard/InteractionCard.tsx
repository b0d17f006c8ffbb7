// One question a server asked, as the inline queue and the modal both draw it: the dialog title
// of 000 ("Elicitation Request" / "Operation Needs Input"), the header naming the server, its
// identity and the request id (always visible), the time left before the backend declines it,
// the server's message, then the answer controls of its kind (elicitation form or URL, sampling,
// or a raw JSON answer). Its parts are exported for a round's walk-through (RoundDialog).

import { Badge, Button, Card, Group, ScrollArea, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { Interaction } from '../../../generated/events';
import { dialogHeader, dialogTitle, messageOf, serverIdentity, shortText, timeLeft, timeoutText, type InteractionAnswer } from '../../../utils/interactions';
import { parseJsonText } from '../../../utils/form';
import type { FormField, Json, JsonObject } from '../../../utils/types';
import { ElicitationForm } from '../ElicitationForm/ElicitationForm';
import { JsonEditor } from '../JsonEditor/JsonEditor';
import { SamplingRequest } from '../SamplingRequest/SamplingRequest';
import { UrlElicitation } from '../UrlElicitation/UrlElicitation';

export interface InteractionCardProps {
  interaction: Interaction;
  /** 1-based place in its queue, and the queue's length. */
  place: number;
  total: number;
  /** The server's `serverInfo` (its own name and version), when connected. */
  serverInfo: JsonObject | null;
  onAnswer: (id: number, answer: InteractionAnswer) => Promise<boolean>;
  onFormModel: (schema: Json) => Promise<FormField>;
}

function obj(v: Json | undefined): JsonObject {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

/** A clock for the time left (once a second). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

export function InteractionCard({ interaction: i, place, total, serverInfo, onAnswer, onFormModel }: InteractionCardProps) {
  const [busy, setBusy] = useState(false);
  const answer = (a: InteractionAnswer) => {
    setBusy(true);
    // On success the `interactionClosed` event removes this card; on failure it stays answerable.
    void onAnswer(i.id, a).then((ok) => !ok && setBusy(false));
  };
  return (
    <Card withBorder p="sm" data-testid="interaction" data-id={i.id} data-kind={i.kind} data-round={i.round ?? ''} data-server={i.server}>
      <Stack gap="xs">
        <InteractionHeader interaction={i} serverInfo={serverInfo} place={`${place} of ${total}`} />
        <InteractionBody interaction={i} />
        <AnswerControls interaction={i} onAnswer={answer} onFormModel={onFormModel} busy={busy} />
      </Stack>
    </Card>
  );
}

/** The title, the method, the place badge, the header naming the server, its identity and the
 *  request, the round and the time left. */
// `place` is the card's place in the pending queue ("2 of 5"); left out where it says nothing.
export function InteractionHeader({ interaction: i, serverInfo, place }: { interaction: Interaction; serverInfo: JsonObject | null; place?: string }) {
  const now = useNow();
  const identity = serverIdentity(serverInfo);
  return (
    <>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Title order={5} data-testid="interaction-title">
          {dialogTitle(i)}
        </Title>
        <Group gap={6} wrap="nowrap">
          <Badge variant="light" ff="monospace" tt="none" data-testid="interaction-method">
            {shortText(i.method, 60)}
            {i.kind === 'elicitationForm' ? ' (form)' : i.kind === 'elicitationUrl' ? ' (url)' : ''}
          </Badge>
          {place && (
            <Badge variant="outline" color="gray" tt="none" title="its place in the pending queue" data-testid="interaction-place">
              {place}
            </Badge>
          )}
        </Group>
      </Group>
      <Text size="sm" fw={600} data-testid="interaction-header">
        {shortText(dialogHeader(i), 300)}
      </Text>
      <Text size="xs" c="dimmed" data-testid="interaction-identity">
        Server{' '}
        <Text span ff="monospace" size="xs" c="bright" data-testid="interaction-server">
          {shortText(i.server, 100)}
        </Text>
        {identity && ` (serverInfo: ${shortText(identity, 100)})`} · request{' '}
        <Text span ff="monospace" size="xs" c="bright" data-testid="interaction-request-id">
          {shortText(i.origin, 200)}
        </Text>{' '}
        · interaction #{i.id}
        {i.round !== null && ` · round ${i.round}${i.maxRounds ? ` of at most ${i.maxRounds}` : ''}`}
      </Text>
      <Text size="xs" c="dimmed" data-testid="interaction-time-left">
        Declined automatically in {timeLeft(i, now)} if not answered (the backend waits {timeoutText(i)} for an answer).
      </Text>
    </>
  );
}

/** The server's message and, for a form, the warning about what to give it. */
export function InteractionBody({ interaction: i }: { interaction: Interaction }) {
  const message = messageOf(i);
  return (
    <>
      {message && (
        <ScrollArea.Autosize mah={160} type="auto">
          <Text size="sm" className="mcpscope-elicit-message" data-testid="interaction-message">
            {shortText(message, 5000)}
          </Text>
        </ScrollArea.Autosize>
      )}
      {i.kind === 'elicitationForm' && (
        <Text size="xs" c="yellow">
          Only give information you trust «{shortText(i.server, 100)}» with.
        </Text>
      )}
    </>
  );
}

export interface AnswerControlsProps {
  interaction: Interaction;
  onAnswer: (a: InteractionAnswer) => void;
  onFormModel: (schema: Json) => Promise<FormField>;
  busy: boolean;
  /** A form's accept button's words (a round's walk-through: "Next", "Submit all"). */
  acceptLabel?: string;
}

/** The answer controls of the question's kind: elicitation form or URL, sampling, raw JSON. */
export function AnswerControls({ interaction: i, onAnswer, onFormModel, busy, acceptLabel }: AnswerControlsProps) {
  const p = obj(i.payload);
  if (i.kind === 'elicitationForm') return <ElicitationForm id={i.id} schema={p.requestedSchema} onFormModel={onFormModel} onAnswer={onAnswer} busy={busy} acceptLabel={acceptLabel} />;
  if (i.kind === 'elicitationUrl') {
    return <UrlElicitation url={typeof p.url === 'string' ? p.url : ''} elicitationId={typeof p.elicitationId === 'string' && p.elicitationId ? p.elicitationId : null} onAnswer={onAnswer} busy={busy} />;
  }
  if (i.kind === 'sampling') return <SamplingRequest id={i.id} server={i.server} payload={i.payload} onAnswer={onAnswer} busy={busy} />;
  return <RawAnswer onAnswer={onAnswer} busy={busy} payload={i.payload} />;
}

/** Kinds without a dialog of their own yet (roots, unknown methods): the request as
 *  JSON, and an answer written by hand. */
function RawAnswer({ payload, onAnswer, busy }: { payload: Json; onAnswer: (a: InteractionAnswer) => void; busy: boolean }) {
  const [text, setText] = useState('{}');
  const parsed = parseJsonText(text);
  return (
    <Stack gap="xs" data-testid="interaction-raw">
      <Text size="xs" ff="monospace" className="mcpscope-elicit-message">
        {shortText(JSON.stringify(payload, null, 2) ?? '', 5000)}
      </Text>
      <JsonEditor value={parsed.value} onChange={() => undefined} onText={setText} label="Result (JSON)" minRows={3} testId="interaction-raw-result" />
      <Group gap="xs" justify="flex-end">
        <Button variant="light" color="red" onClick={() => onAnswer({ action: 'decline' })} disabled={busy} data-testid="interaction-decline">
          Decline
        </Button>
        <Button onClick={() => onAnswer({ action: 'accept', content: parsed.value ?? {} })} disabled={!!parsed.error} loading={busy} data-testid="interaction-accept">
          Send
        </Button>
      </Group>
    </Stack>
  );
}
