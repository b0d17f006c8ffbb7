// A URL-mode elicitation (003's "External Action Required"): the URL in full with its domain
// emphasised, Copy URL, Open in Browser (a new tab, `noopener noreferrer`: this page is never
// navigated and the opened page cannot reach back into it), the elicitation id, and the status.
// Opening the URL is the user's consent, so it answers `accept`; Decline and Cancel say no.
// After an accept the server finishes out of band: `UrlWaitCard` shows the wait for
// `notifications/elicitation/complete`.

import { Alert, Button, Group, Loader, Stack, Text } from '@mantine/core';
import { shortText, urlParts, type InteractionAnswer, type UrlWait } from '../../../utils/interactions';
import { CopyValue } from '../../elements/CopyValue/CopyValue';

export interface UrlElicitationProps {
  url: string;
  /** `elicitationId` (2025-11-25; 2026-07-28 has none). */
  elicitationId: string | null;
  onAnswer: (answer: InteractionAnswer) => void;
  busy: boolean;
}

/** `https://` **auth.example.com** `/oauth?…` — the domain is what the user must check. */
export function UrlText({ url }: { url: string }) {
  const u = urlParts(url);
  // A URL may be megabytes long: shown cut, copied whole.
  const rest = shortText(u.rest, 2000);
  return (
    <Text ff="monospace" size="sm" className="mcpscope-url" data-testid="elicit-url">
      {u.scheme}
      <Text span fw={800} c="bright" ff="monospace" size="sm" data-testid="elicit-url-domain" td="underline">
        {u.host}
      </Text>
      {rest}
    </Text>
  );
}

export function UrlElicitation({ url, elicitationId, onAnswer, busy }: UrlElicitationProps) {
  const u = urlParts(url);
  return (
    <Stack gap="xs" data-testid="elicit-url-mode" data-openable={u.openable ? 'true' : 'false'}>
      <Text size="sm">The server is requesting you visit:</Text>
      <UrlText url={url} />
      {!u.ok && (
        <Alert color="red" p="xs" data-testid="elicit-url-invalid">
          <Text size="xs">This is not a valid URL; it is shown as the server sent it and cannot be opened from here.</Text>
        </Alert>
      )}
      {u.ok && !u.openable && (
        <Alert color="red" p="xs" data-testid="elicit-url-unsafe">
          <Text size="xs">Not opened from here: {u.refused}.</Text>
        </Alert>
      )}
      <Text size="xs" c="yellow" data-testid="elicit-url-warning">
        This opens an external page: check that the domain{u.host ? ` (${u.host})` : ''} is the one you expect before you go on.
      </Text>
      <Text size="xs" c="dimmed" data-testid="elicit-id">
        Elicitation ID: {elicitationId ? <Code text={elicitationId} /> : 'none (2026-07-28 drops it: the retried call finishes the request)'}
      </Text>
      <Group gap="xs" wrap="nowrap" data-testid="elicit-status" data-status="asking">
        <Loader size="xs" />
        <Text size="xs" c="dimmed">
          Waiting for you: open the page (that accepts) or decline.
        </Text>
      </Group>
      <Group gap="xs" justify="flex-end">
        <CopyValue value={url} label="Copy URL" testId="elicit-copy-url" />
        <Button variant="default" onClick={() => onAnswer({ action: 'cancel' })} disabled={busy} data-testid="elicit-cancel">
          Cancel
        </Button>
        <Button variant="light" color="red" onClick={() => onAnswer({ action: 'decline' })} disabled={busy} data-testid="elicit-decline">
          Decline
        </Button>
        {u.openable ? (
          <Button
            component="a"
            href={url}
            target="_blank"
            rel="noopener noreferrer"
            loading={busy}
            data-testid="elicit-open"
            onClick={() => onAnswer({ action: 'accept' })}
          >
            Open in Browser
          </Button>
        ) : (
          <Button disabled data-testid="elicit-open">
            Open in Browser
          </Button>
        )}
      </Group>
    </Stack>
  );
}

function Code({ text }: { text: string }) {
  return (
    <Text span ff="monospace" size="xs" c="bright">
      {shortText(text, 200)}
    </Text>
  );
}

/** After Open in Browser: waiting for the server's `notifications/elicitation/complete`. */
export function UrlWaitCard({ wait, onDismiss }: { wait: UrlWait; onDismiss: () => void }) {
  return (
    <Stack gap={6} data-testid="elicit-url-wait" data-completed={wait.completed ? 'true' : 'false'} data-elicitation-id={wait.elicitationId}>
      <Text size="sm" fw={600}>
        URL elicitation · {wait.server}
      </Text>
      <UrlText url={wait.url} />
      <Text size="xs" c="dimmed">
        Elicitation ID: <Code text={wait.elicitationId} />
      </Text>
      <Group gap="xs" justify="space-between" wrap="nowrap">
        <Group gap="xs" wrap="nowrap" data-testid="elicit-status" data-status={wait.completed ? 'completed' : 'waiting'}>
          {wait.completed ? (
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
        <Button size="compact-xs" variant="default" onClick={onDismiss} data-testid="elicit-wait-dismiss">
          {wait.completed ? 'Close' : 'Stop waiting'}
        </Button>
      </Group>
    </Stack>
  );
}
