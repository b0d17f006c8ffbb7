// What a call that ended in an error needs the user to know about its questions, above its
// result: the `-32042` URL-elicitation-required error of a 2025-11-25 call as URL elicitation
// cards (the URL with its domain emphasised, Copy URL, Open in Browser, the elicitation id, and
// whether the server said `notifications/elicitation/complete`) with "Retry the call"; and the
// engine's round limit, said plainly. Nothing for any other outcome.

import { Alert, Button, Card, Group, Loader, Stack, Text } from '@mantine/core';
import { urlParts } from '../../../utils/interactions';
import { roundsExceeded, urlElicitationsRequired } from '../../../utils/rounds';
import type { ApiErrorBody } from '../../../utils/types';
import { CopyValue } from '../../elements/CopyValue/CopyValue';
import { UrlText } from '../UrlElicitation/UrlElicitation';

export interface RoundsNoticeProps {
  error: ApiErrorBody;
  /** `notifications/elicitation/complete` ids this server sent. */
  completed: string[];
  /** Run the same call again (the user completed the URL). */
  onRetry: () => void;
  /** A call is running (the retry waits). */
  running: boolean;
}

export function RoundsNotice({ error, completed, onRetry, running }: RoundsNoticeProps) {
  const limit = roundsExceeded(error);
  if (limit) {
    return (
      <Alert color="orange" title="Round limit reached" data-testid="rounds-exceeded">
        <Text size="sm">{limit}</Text>
      </Alert>
    );
  }
  const urls = urlElicitationsRequired(error);
  if (!urls) return null;
  return (
    <Card withBorder p="sm" data-testid="url-required" data-count={urls.length}>
      <Stack gap="xs">
        <Text fw={700} size="sm">
          URL Elicitation Required (-32042)
        </Text>
        <Text size="sm">The server needs you to open {urls.length === 1 ? 'this page' : 'these pages'} before the call can succeed; then retry the call.</Text>
        {urls.length === 0 && (
          <Text size="xs" c="red" data-testid="url-required-none">
            The error's data.elicitations names no URL: nothing to open (the error is shown below as it came).
          </Text>
        )}
        {urls.map((u, k) => {
          const done = u.elicitationId !== null && completed.includes(u.elicitationId);
          const parts = urlParts(u.url);
          return (
            <Stack key={k} gap={4} data-testid="url-required-item" data-elicitation-id={u.elicitationId ?? ''} data-completed={done ? 'true' : 'false'}>
              {u.message && <Text size="sm">{u.message.slice(0, 2000)}</Text>}
              <UrlText url={u.url} />
              <Text size="xs" c="dimmed" data-testid="elicit-id">
                Elicitation ID: {u.elicitationId ?? 'none given'}
              </Text>
              <Group gap="xs" justify="space-between" wrap="nowrap">
                <Group gap={6} wrap="nowrap" data-testid="elicit-status" data-status={done ? 'completed' : 'waiting'}>
                  {done ? (
                    <Text size="xs" c="green">
                      ✓ Completed: the server sent notifications/elicitation/complete.
                    </Text>
                  ) : (
                    <>
                      <Loader size="xs" />
                      <Text size="xs" c="dimmed">
                        Waiting for completion (notifications/elicitation/complete)…
                      </Text>
                    </>
                  )}
                </Group>
                <Group gap="xs" wrap="nowrap">
                  <CopyValue value={u.url} label="Copy URL" testId="elicit-copy-url" />
                  <Button component="a" href={parts.openable ? u.url : undefined} target="_blank" rel="noopener noreferrer" disabled={!parts.openable} size="xs" variant="default" data-testid="elicit-open">
                    Open in Browser
                  </Button>
                </Group>
              </Group>
            </Stack>
          );
        })}
        <Group justify="flex-end">
          <Button onClick={onRetry} loading={running} data-testid="url-required-retry">
            Retry the call
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
