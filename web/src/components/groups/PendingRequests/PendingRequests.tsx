// "Pending Client Requests (N)" (003's inline client request queue): what a running call's server
// asked, in order, each with its kind, summary and answer controls. The call resumes when all
// are answered. The same block fills the modal for questions whose request is not on screen.

import { Alert, Badge, Group, Stack, Text } from '@mantine/core';
import type { Interaction } from '../../../generated/events';
import { MAX_SHOWN, summary, type InteractionAnswer } from '../../../utils/interactions';
import type { FormField, Json, JsonObject } from '../../../utils/types';
import { groupRounds, roundLabel } from '../../../utils/rounds';
import { InteractionCard } from '../InteractionCard/InteractionCard';
import { RoundDialog } from '../InteractionCard/RoundDialog';

export interface PendingRequestsProps {
  items: Interaction[];
  /** Each server's `serverInfo`, by catalog name. */
  serverInfos: Record<string, JsonObject | null>;
  onAnswer: (id: number, answer: InteractionAnswer) => Promise<boolean>;
  onFormModel: (schema: Json) => Promise<FormField>;
  /** Draw only the first (the modal walks them one at a time); the rest are listed. A round's
   *  keys count as one: they are one dialog. */
  onlyFirst?: boolean;
}

export function PendingRequests({ items, serverInfos, onAnswer, onFormModel, onlyFirst }: PendingRequestsProps) {
  const n = items.length;
  const groups = groupRounds(items);
  const drawn = groups.slice(0, onlyFirst ? 1 : MAX_SHOWN);
  const drawnCount = drawn.reduce((k, g) => k + (g.kind === 'round' ? g.items.length : 1), 0);
  const listed = onlyFirst ? items.slice(drawnCount, drawnCount + MAX_SHOWN) : [];
  const hidden = n - drawnCount - listed.length;
  const round = roundLabel(items);
  return (
    <Stack gap="xs" data-testid="pending-requests" data-count={n}>
      <Group gap={6}>
        <Text fw={700} size="sm" c="orange" data-testid="pending-requests-title">
          [!] Pending Client Requests ({n})
        </Text>
        {round && (
          <Badge color="orange" variant="outline" tt="none" data-testid="pending-round">
            {round}
          </Badge>
        )}
      </Group>
      {drawn.map((g, k) =>
        g.kind === 'round' ? (
          <RoundDialog
            key={g.items[0].id}
            items={g.items}
            keys={g.keys}
            place={k + 1}
            total={groups.length}
            serverInfo={serverInfos[g.items[0].server] ?? null}
            onAnswer={onAnswer}
            onFormModel={onFormModel}
          />
        ) : (
          <InteractionCard
            key={g.interaction.id}
            interaction={g.interaction}
            place={k + 1}
            total={groups.length}
            serverInfo={serverInfos[g.interaction.server] ?? null}
            onAnswer={onAnswer}
            onFormModel={onFormModel}
          />
        ),
      )}
      {listed.length > 0 && (
        <Stack gap={2} data-testid="pending-next">
          <Text size="xs" c="dimmed">
            Next, in order:
          </Text>
          {listed.map((i, k) => (
            <Text size="xs" key={i.id} truncate>
              {k + 2}. {i.server} · {i.method} · {summary(i)}
            </Text>
          ))}
        </Stack>
      )}
      {hidden > 0 && (
        <Alert color="gray" p={6} data-testid="pending-more" data-count={hidden}>
          <Text size="xs">
            and {hidden} more waiting (answered in order; each is declined when its deadline passes).
          </Text>
        </Alert>
      )}
    </Stack>
  );
}
