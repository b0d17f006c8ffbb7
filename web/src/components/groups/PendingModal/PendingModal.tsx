// The modal for what a server asks when the request that caused it is not on screen (another
// tab, another server, a background request): the same cards as the inline queue, the oldest
// first, one at a time. Closing it only hides what is there now (the top bar's badge still
// counts it and brings it back); a new question opens it again. Accepted URL elicitations wait
// here for `notifications/elicitation/complete`.

import { Modal, Stack } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { Interaction } from '../../../generated/events';
import type { InteractionAnswer, UrlWait } from '../../../utils/interactions';
import type { FormField, Json, JsonObject } from '../../../utils/types';
import { PendingRequests } from '../PendingRequests/PendingRequests';
import { UrlWaitCard } from '../UrlElicitation/UrlElicitation';

export interface PendingModalProps {
  items: Interaction[];
  waits: UrlWait[];
  /** Bumped by the top bar's badge: show everything again. */
  reopen: number;
  serverInfos: Record<string, JsonObject | null>;
  onAnswer: (id: number, answer: InteractionAnswer) => Promise<boolean>;
  onFormModel: (schema: Json) => Promise<FormField>;
  /** The modal closed, by the user or because nothing is left in it (the view stops forcing
   *  inline questions into it). */
  onClosed: () => void;
}

/** Below the sign-in dialog (a login may be what the server waits for). */
const Z = 350;

export function PendingModal({ items, waits, reopen, serverInfos, onAnswer, onFormModel, onClosed }: PendingModalProps) {
  // Ids up to this one were hidden by closing the modal; waits the user dismissed.
  const [hiddenUpTo, setHiddenUpTo] = useState(0);
  const [seenReopen, setSeenReopen] = useState(reopen);
  const [dismissed, setDismissed] = useState<Set<number>>(() => new Set());
  if (seenReopen !== reopen) {
    setSeenReopen(reopen);
    setHiddenUpTo(0);
  }
  const shown = items.filter((i) => i.id > hiddenUpTo);
  const waiting = waits.filter((w) => !dismissed.has(w.interactionId) && w.interactionId > hiddenUpTo);
  const open = shown.length > 0 || waiting.length > 0;
  useEffect(() => {
    if (!open) onClosed();
    // Only the transition matters; the callback is a new closure every render.
  }, [open]);
  const close = () => {
    const ids = [...items.map((i) => i.id), ...waits.map((w) => w.interactionId)];
    setHiddenUpTo(Math.max(hiddenUpTo, ...ids));
    onClosed();
  };
  return (
    <Modal opened={open} onClose={close} title="The server needs an answer" size="lg" zIndex={Z} closeOnClickOutside={false} data-testid="pending-modal">
      <Stack gap="sm" data-testid="pending-modal-body">
        {shown.length > 0 && <PendingRequests items={shown} serverInfos={serverInfos} onAnswer={onAnswer} onFormModel={onFormModel} onlyFirst />}
        {waiting.map((w) => (
          <UrlWaitCard key={w.interactionId} wait={w} onDismiss={() => setDismissed((d) => new Set(d).add(w.interactionId))} />
        ))}
      </Stack>
    </Modal>
  );
}
