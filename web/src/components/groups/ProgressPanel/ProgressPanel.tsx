import { Button, Group, Progress, Stack, Text } from '@mantine/core';
import { duration } from '../../../utils/format';
import type { ProgressEvent } from '../../../utils/types';

export interface ProgressPanelProps {
  progress: ProgressEvent | undefined;
  elapsedMs: number;
  onCancel: () => void;
  cancelling?: boolean;
  /** Questions of this call waiting for the user's answer: then it is the server that waits. */
  asked?: number;
}

/** The line under the bar: who waits on whom (a question of the server's first: then the user
 *  is the one to act), else the server's own progress message. */
function statusText(progress: ProgressEvent | undefined, asked: number): string {
  if (asked > 0) return `The server is waiting for your answer (${asked === 1 ? 'one question' : `${asked} questions`} below)`;
  if (progress?.message) return progress.message;
  if (progress) return `${progress.progress}${progress.total ? ` of ${progress.total}` : ''}`;
  return 'Waiting for the server…';
}

/** Progress bar with percentage, step text, elapsed time and Cancel. */
export function ProgressPanel({ progress, elapsedMs, onCancel, cancelling, asked = 0 }: ProgressPanelProps) {
  const pct =
    progress && progress.total ? Math.min(100, Math.round((progress.progress / progress.total) * 100)) : undefined;
  return (
    <Stack gap={4} data-testid="progress" data-progress={pct ?? ''} data-has-progress={progress ? 'true' : 'false'} data-asked={asked}>
      <Progress value={pct ?? 100} animated={pct === undefined} striped={pct === undefined} size="lg" />
      <Group justify="space-between">
        <Text size="xs" data-testid="progress-message">
          {pct !== undefined ? `${pct}% · ` : ''}
          {statusText(progress, asked)}
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
