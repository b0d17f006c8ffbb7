// The global "sign in" dialog: shown while a server's OAuth login waits for a person (an `auth`
// event with `pending`). It names the server, why (login or step-up), the authorization server and
// the scopes, and opens the authorization page in a new tab; the backend's /oauth/callback ends
// the login and the next `auth` event closes the dialog.

import { Alert, Badge, Button, Group, Loader, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { scopeDiff, scopeList } from '../../../utils/auth';
import { openable } from '../../../utils/openable';
import type { AuthView } from '../../../utils/types';
import { CopyValue } from '../../elements/CopyValue/CopyValue';

export interface AuthDialogProps {
  /** Servers whose login waits for a person, oldest first. */
  logins: AuthView[];
  /** Cancel a server's pending login. */
  onCancel: (server: string) => Promise<void>;
}

/** Above Server Info (which may have started a re-authorization). */
const Z = 400;

export function AuthDialog({ logins, onCancel }: AuthDialogProps) {
  // Closing the dialog only hides that login (it keeps waiting; Server Info still offers it).
  const [dismissed, setDismissed] = useState<Set<string>>(() => new Set());
  const [cancelling, setCancelling] = useState<string | null>(null);
  const shown = logins.filter((v) => v.pending && !dismissed.has(v.pending.id));
  const view = shown[0];
  const p = view?.pending ?? null;
  const granted = scopeList(view?.summary?.scope);
  const scopes = p ? scopeDiff(granted, p.scopes) : [];
  const stepUp = p?.reason === 'step-up';
  const added = scopes.filter((s) => s.isNew).length;
  // The authorization server chose this URL: only what the shared rule allows becomes a link.
  const link = p ? openable(p.url) : null;

  const cancel = () => {
    if (!view || !p) return;
    setCancelling(p.id);
    void onCancel(view.server).finally(() => setCancelling(null));
  };

  return (
    <Modal
      opened={!!p}
      onClose={() => p && setDismissed((d) => new Set(d).add(p.id))}
      title={stepUp ? 'More permissions needed' : 'Sign-in needed'}
      size="md"
      zIndex={Z}
      closeOnClickOutside={false}
      data-testid="auth-dialog-modal"
    >
      {view && p && (
        <Stack gap="sm" data-testid="auth-dialog" data-server={view.server} data-reason={p.reason} data-pending={p.id}>
          <Text size="sm" data-testid="auth-reason">
            <Text span fw={700}>
              {view.server}
            </Text>{' '}
            {stepUp ? 'needs more permissions' : 'needs you to sign in'}
          </Text>
          <Text size="xs" c="dimmed">
            Authorization server:{' '}
            <Text span ff="monospace" size="xs" c="bright" data-testid="auth-issuer">
              {p.issuer ?? 'unknown'}
            </Text>
          </Text>
          <Stack gap={4}>
            <Text size="xs" c="dimmed">
              {p.scopes.length === 0
                ? 'No scope is asked for: the authorization server decides what to grant.'
                : stepUp
                  ? `Scopes the new login asks for (${added} not granted yet):`
                  : 'Scopes asked for:'}
            </Text>
            {scopes.length > 0 && (
              <Group gap={6}>
                {scopes.map(({ scope, isNew }) => (
                  <Badge
                    key={scope}
                    size="sm"
                    color={stepUp && isNew ? 'orange' : 'gray'}
                    variant={stepUp && isNew ? 'filled' : 'light'}
                    data-testid="auth-scope"
                    data-scope={scope}
                    data-new={isNew ? 'true' : 'false'}
                  >
                    {scope}
                    {stepUp && isNew ? ' · new' : ''}
                  </Badge>
                ))}
              </Group>
            )}
          </Stack>
          <Group gap="xs">
            {link?.ok ? (
              <Button component="a" href={link.url} target="_blank" rel="noopener noreferrer" data-testid="auth-open">
                Open authorization page
              </Button>
            ) : (
              <Alert color="red" p={6} data-testid="auth-url-refused">
                <Text size="xs">The authorization page is not opened: {link?.reason}.</Text>
              </Alert>
            )}
            <CopyValue value={p.url} label="Copy URL" testId="auth-copy-url" />
            <Button variant="default" color="red" onClick={cancel} loading={cancelling === p.id} data-testid="auth-cancel">
              Cancel
            </Button>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Loader size="xs" />
            <Text size="xs" c="dimmed">
              Sign in and consent in the new tab. It comes back to mcpscope{view.callbackUrl ? ` (${view.callbackUrl})` : ''} and this
              dialog closes by itself; the request that needed authorization waits meanwhile.
            </Text>
          </Group>
          {shown.length > 1 && (
            <Alert color="gray" p={6}>
              <Text size="xs">
                {shown.length - 1} more {shown.length === 2 ? 'server is' : 'servers are'} waiting to sign in:{' '}
                {shown
                  .slice(1)
                  .map((v) => v.server)
                  .join(', ')}
              </Text>
            </Alert>
          )}
        </Stack>
      )}
    </Modal>
  );
}
