// The bearer-token dialog (002 "Authentication"): opened by a 401 from the gateway; the token is
// held in the page's memory only and sent to the relay in X-MCP-Gateway-Token.
import { Button, Group, Modal, PasswordInput, Stack, Text } from '@mantine/core';
import { useState } from 'react';

export interface TokenDialogProps {
  opened: boolean;
  gateway?: string;
  /** A token was already sent and refused. */
  refused: boolean;
  onSubmit: (token: string) => void;
  onDismiss: () => void;
}

export function TokenDialog({ opened, gateway, refused, onSubmit, onDismiss }: TokenDialogProps) {
  const [value, setValue] = useState('');
  const submit = () => {
    const t = value.trim();
    if (t === '') return;
    setValue('');
    onSubmit(t);
  };
  return (
    <Modal opened={opened} onClose={onDismiss} title="Bearer token" data-testid="token-dialog">
      <Stack gap="sm" data-testid="token-dialog-body">
        <Text size="sm">
          The gateway <b>{gateway}</b> answered 401: it needs a bearer token.
          {refused ? ' The token given was not accepted.' : ''}
        </Text>
        <Text size="xs" c="dimmed">
          The token stays in this page's memory. mcpscope sends it as <code>Authorization: Bearer</code> to this gateway only, and only
          over HTTPS.
        </Text>
        <PasswordInput
          label="Token"
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && submit()}
          data-testid="token-input"
          autoComplete="off"
          data-autofocus
        />
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onDismiss} data-testid="token-cancel">
            Cancel
          </Button>
          <Button onClick={submit} disabled={value.trim() === ''} data-testid="token-submit">
            Connect
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
