import { Badge, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { outcomeBadge, type SentEntry } from '../../../utils/experimental';

/** This session's sends, newest first; a click puts one back into the editor. */
export function SentHistory({ entries, onLoad }: { entries: SentEntry[]; onLoad: (e: SentEntry) => void }) {
  return (
    <Paper withBorder p="md" data-testid="exp-history">
      <Title order={5} mb="xs">
        Request History
      </Title>
      {entries.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing sent yet in this session. Every send is also in History and Traffic.
        </Text>
      ) : (
        <Stack gap={2}>
          {entries.map((e, i) => {
            const b = outcomeBadge(e.outcome);
            return (
              <UnstyledButton key={`${e.at}-${entries.length - i}`} onClick={() => onLoad(e)} data-testid="exp-history-row" data-outcome={e.outcome} title="Load into the editor">
                <Text size="sm" ff="monospace" component="span">
                  {new Date(e.at).toLocaleTimeString()} - {e.label}{' '}
                </Text>
                <Badge size="xs" color={b.color} variant="light">
                  {b.word}
                </Badge>
                <Text size="xs" c="dimmed" component="span">
                  {' '}
                  {e.durationMs.toFixed(1)} ms
                </Text>
              </UnstyledButton>
            );
          })}
        </Stack>
      )}
    </Paper>
  );
}
