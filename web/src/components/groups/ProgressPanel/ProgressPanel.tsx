import { Button, Group, Progress, Stack, Text } from '@mantine/core';
import { duration } from '../../../utils/format';
import type { ProgressEvent } from '../../../utils/types';

export interface ProgressPanelProps {
  progress: ProgressEvent | undefined;
  elapsedMs: number;
  onCancel: () => void;
  cancelling?: boolean;
}

/** Progress bar with percentage, step text, elapsed time and Cancel. */
export function ProgressPanel({ progress, elapsedMs, onCancel, cancelling }: ProgressPanelProps) {
  const pct =
    progress && progress.total ? Math.min(100, Math.round((progress.progress / progress.total) * 100)) : undefined;
  return (
    <Stack gap={4} data-testid="progress" data-progress={pct ?? ''} data-has-progress={progress ? 'true' : 'false'}>
      <Progress value={pct ?? 100} animated={pct === undefined} striped={pct === undefined} size="lg" />
      <Group justify="space-between">
        <Text size="xs" data-testid="progress-message">
          {pct !== undefined ? `${pct}% · ` : ''}
          {progress?.message ?? (progress ? `${progress.progress}${progress.total ? ` of ${progress.total}` : ''}` : 'Waiting for the server…')}
        </Text>
        <Group gap="xs">
          <Text size="xs" c="dimmed" data-testid="elapsed">
            {duration(elapsedMs)}
          </Text>
          <Button size="compact-xs" color="red" variant="light" onClick={onCancel} loading={cancelling} data-testid="cancel">
            Cancel
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}
