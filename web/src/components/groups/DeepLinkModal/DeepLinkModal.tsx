// A deep link (`?server=S&openApp=T&appArgs=…`) asks before it acts: any page the browser visits
// (another loopback port's included) can navigate here with such a link, and acting on it would
// start S (for stdio: run its command) and call T with the link's arguments. So the link only
// pre-fills this dialog — the server, what connecting starts, the app and its arguments — and
// nothing connects or runs until the person confirms here (issue 24 item 27).

import { Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { shortText } from '../../../utils/interactions';
import type { JsonObject } from '../../../utils/types';

export interface DeepLinkRequest {
  server: string;
  /** What connecting starts or reaches: the stdio command line, or the URL. */
  target: string;
  connected: boolean;
  openApp: string | null;
  args: JsonObject;
}

export interface DeepLinkModalProps {
  link: DeepLinkRequest | null;
  onConfirm: () => void;
  onClose: () => void;
}

export function DeepLinkModal({ link, onConfirm, onClose }: DeepLinkModalProps) {
  const args = link ? JSON.stringify(link.args, null, 2) : '';
  return (
    <Modal opened={!!link} onClose={onClose} title="Open this link?" size="md" data-testid="deep-link-modal" closeOnClickOutside={false}>
      {link && (
        <Stack gap="sm" data-testid="deep-link" data-server={link.server} data-app={link.openApp ?? ''}>
          <Text size="sm">
            A link asks to {link.connected ? 'use' : 'connect to'}{' '}
            <Text span fw={700}>
              {link.server}
            </Text>
            {link.openApp ? (
              <>
                {' '}
                and open its app{' '}
                <Text span fw={700} ff="monospace">
                  {link.openApp}
                </Text>
                , which calls that tool with the arguments below
              </>
            ) : null}
            . Links can come from any page you visit: go on only if you opened it yourself.
          </Text>
          {!link.connected && (
            <Text size="xs" c="yellow" data-testid="deep-link-target">
              Connecting starts: <Code>{shortText(link.target, 500)}</Code>
            </Text>
          )}
          {link.openApp && (
            <Code block data-testid="deep-link-args" style={{ maxHeight: 200, overflow: 'auto' }}>
              {shortText(args, 4000)}
            </Code>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} data-testid="deep-link-cancel">
              Cancel
            </Button>
            <Button
              onClick={() => {
                onConfirm();
                onClose();
              }}
              data-testid="deep-link-confirm"
            >
              {link.openApp ? 'Open the app' : 'Connect'}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
