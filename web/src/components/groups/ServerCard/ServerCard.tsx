import { Badge, Button, Card, Code, Group, Switch, Text } from '@mantine/core';
import { targetOf } from '../../../utils/status';
import type { ServerView } from '../../../utils/types';
import { CopyValue } from '../../elements/CopyValue/CopyValue';
import { InlineError } from '../../elements/InlineError/InlineError';
import { StatusDot } from '../../elements/StatusDot/StatusDot';

export interface ServerCardProps {
  server: ServerView;
  version?: string;
  onToggle: (on: boolean) => void;
  onOpen: () => void;
  onInfo: () => void;
  onEdit: () => void;
  onRemove: () => void;
}

/** One catalog server: transport, command/URL with copy, status, toggle, actions, inline error. */
export function ServerCard({ server, version, onToggle, onOpen, onInfo, onEdit, onRemove }: ServerCardProps) {
  const target = targetOf(server);
  const on = server.status === 'connected' || server.status === 'connecting';
  return (
    <Card data-testid="server-card" data-server={server.name} data-status={server.status}>
      <Group justify="space-between" wrap="nowrap">
        <Group gap="xs" wrap="nowrap">
          <Text fw={600} truncate data-testid="server-name">
            {server.name}
          </Text>
          {version && <Text size="xs" c="dimmed">v{version}</Text>}
        </Group>
        {server.status === 'connected' && (
          <Button size="compact-xs" variant="light" onClick={onOpen} data-testid="open-server">
            Open
          </Button>
        )}
      </Group>
      <Group justify="space-between" mt={6}>
        <Group gap="sm">
          <Badge color="gray" variant="outline" tt="uppercase" data-testid="transport">
            {server.transport}
          </Badge>
          <StatusDot server={server} />
          {server.era && <Badge color="gray">{server.protocolVersion ?? server.era}</Badge>}
        </Group>
        {/* Labelled: the toggle is the only way to connect, so it says what it does. */}
        <Switch
          checked={on}
          disabled={server.status === 'connecting'}
          onChange={(e) => onToggle(e.currentTarget.checked)}
          label={toggleLabel(server.status)}
          labelPosition="left"
          wrapperProps={{ 'data-testid': 'server-toggle', 'data-checked': on ? 'true' : 'false' }}
        />
      </Group>
      <Card.Section withBorder inheritPadding py={6} mt="xs">
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Code className="mcpscope-grow" data-testid="server-target">
            {target}
          </Code>
          <CopyValue value={target} testId="copy-target" />
        </Group>
      </Card.Section>
      <Group gap="xs" mt="xs">
        <Button size="compact-sm" variant="default" onClick={onInfo} data-testid="server-info">
          Server Info
        </Button>
        <Button size="compact-sm" variant="default" onClick={onEdit} data-testid="server-edit">
          Edit
        </Button>
        <Button size="compact-sm" variant="default" color="red" onClick={onRemove} data-testid="server-remove">
          Remove
        </Button>
      </Group>
      {server.status === 'failed' && server.error && (
        <Card.Section inheritPadding pb="xs" mt="xs">
          <InlineError message={server.error.message} code={server.error.code} hint={server.error.hint} retries={server.error.retries} onRetry={() => onToggle(true)} />
        </Card.Section>
      )}
    </Card>
  );
}

/** The toggle's label: what clicking it does next (or is doing). */
function toggleLabel(status: ServerView['status']): string {
  if (status === 'connecting') return 'Connecting…';
  if (status === 'connected') return 'Connected';
  return 'Connect';
}
