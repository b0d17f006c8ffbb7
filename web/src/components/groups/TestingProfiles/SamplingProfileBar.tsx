// The Testing Profile part of 003's Sampling Request card: the server's profile choice (switch
// strategies from the card), what the active profile answers to *this* request (asked of the
// backend, which computes it), the **Auto-respond** button that sends that answer now, and — with
// Auto-respond on and without stopping off — the pre-fill handed to the card's Response editor
// so Send Response is one click. A delay profile answering by itself says when.

import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ProfileAnswer } from '../../../generated/events';
import { ApiError, api } from '../../../lib/api';
import { autoRespondLabel, prefillOf, type Prefill } from '../../../utils/profiles';
import { ServerProfileChoice } from './ServerProfileChoice';
import { choiceOf, useProfiles } from './useProfiles';

export interface SamplingProfileBarProps {
  /** The interaction's id. */
  id: number;
  server: string;
  /** The pre-fill for the Response editor, or null (none, or the switches say not to). */
  onPrefill: (p: Prefill | null) => void;
  busy: boolean;
}

export function SamplingProfileBar({ id, server, onPrefill, busy }: SamplingProfileBarProps) {
  const { view } = useProfiles();
  const choice = choiceOf(view, server);
  const profile = view?.profiles.find((p) => p.name === choice.profile) ?? null;
  const [answer, setAnswer] = useState<ProfileAnswer | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  // Asked again whenever the choice or the chosen profile changes.
  const key = JSON.stringify([choice, profile]);
  useEffect(() => {
    let live = true;
    if (!profile) {
      setAnswer(null);
      onPrefill(null);
      return;
    }
    api
      .profileAnswer(id)
      .then((a) => {
        if (!live) return;
        setAnswer(a);
        onPrefill(prefillOf(a));
      })
      // Answered meanwhile (404): the card goes with the interactionClosed event.
      .catch(() => live && setAnswer(null));
    return () => {
      live = false;
    };
  }, [id, key]);
  const respond = async () => {
    setSending(true);
    setFailure(null);
    try {
      await api.answerWithProfile(id);
    } catch (e) {
      setFailure(e instanceof ApiError ? e.message : String(e));
      setSending(false);
    }
  };
  const waitsToAnswer = answer && choice.autoRespond && choice.withoutStopping && answer.delayMs > 0;
  return (
    <Stack gap={4} data-testid="profile-bar" data-profile={answer?.profile.name ?? ''}>
      <ServerProfileChoice server={server} compact />
      {answer && (
        <Group gap="xs" justify="space-between" wrap="nowrap">
          <Text size="xs" data-testid="profile-note">
            Response: [Testing Profile: {answer.profile.name}]
            {waitsToAnswer && ` — answers by itself ${answer.delayMs / 1000} s after the request opened, unless you answer first.`}
          </Text>
          <Button size="compact-xs" variant="light" onClick={() => void respond()} loading={sending} disabled={busy} data-testid="profile-auto-respond">
            {autoRespondLabel(answer)}
          </Button>
        </Group>
      )}
      {answer?.refused && (
        <Text size="xs" c="yellow" data-testid="profile-refused">
          «{answer.profile.name}» cannot answer this request as it says: {answer.refused}. It would decline.
        </Text>
      )}
      {failure && (
        <Alert color="red" p="xs">
          {failure}
        </Alert>
      )}
    </Stack>
  );
}
