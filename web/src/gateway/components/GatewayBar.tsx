// The top of the gateway page: gateway selector, protocol selector, connection details, session
// statistics and Reconnect.
import { Badge, Button, Group, Select, Text, Tooltip } from '@mantine/core';
import { LEGACY_VERSION, MODERN_VERSION, type ProtocolMode } from '../negotiate';
import type { GatewayState } from '../useGateway';

const MODES: { value: ProtocolMode; label: string }[] = [
  { value: 'auto', label: 'Auto' },
  { value: MODERN_VERSION, label: `${MODERN_VERSION} (stateless)` },
  { value: LEGACY_VERSION, label: `${LEGACY_VERSION} (legacy)` },
];

const STATUS_COLOR: Record<string, string> = { connected: 'green', connecting: 'blue', failed: 'red', 'needs-token': 'yellow', expired: 'yellow', idle: 'gray' };
const STATUS_TEXT: Record<string, string> = {
  connected: 'connected',
  connecting: 'connecting…',
  failed: 'not connected',
  'needs-token': 'bearer token needed',
  expired: 'session expired',
  idle: 'not connected',
};

export function GatewayBar({ g }: { g: GatewayState }) {
  return (
    <Group gap="md" align="flex-end" wrap="wrap" data-testid="gateway-bar">
      <Select
        label="Gateway"
        w={240}
        data={(g.gateways ?? []).map((x) => ({ value: x.name, label: x.name }))}
        value={g.gateway ?? null}
        onChange={(v) => v && g.selectGateway(v)}
        allowDeselect={false}
        placeholder={g.gateways?.length === 0 ? 'no gateway for you' : 'choose a gateway'}
        data-testid="gateway-select"
        comboboxProps={{ withinPortal: true }}
      />
      <Select
        label="Protocol"
        w={220}
        data={MODES}
        value={g.mode}
        onChange={(v) => v && g.selectMode(v as ProtocolMode)}
        allowDeselect={false}
        disabled={!g.gateway}
        data-testid="protocol-select"
        comboboxProps={{ withinPortal: true }}
      />
      <ConnectionDetails g={g} />
      <Group gap={6} data-testid="stats" data-calls={g.stats.calls} data-errors={g.stats.errors} data-warnings={g.stats.warnings}>
        <Badge variant="light" color="gray">
          calls {g.stats.calls}
        </Badge>
        <Badge variant="light" color={g.stats.errors > 0 ? 'red' : 'gray'}>
          errors {g.stats.errors}
        </Badge>
        <Badge variant="light" color={g.stats.warnings > 0 ? 'yellow' : 'gray'}>
          warnings {g.stats.warnings}
        </Badge>
      </Group>
      <Group gap="xs">
        {g.gateway && g.status !== 'connecting' && (
          <Button size="xs" variant={g.status === 'connected' ? 'default' : 'filled'} onClick={g.reconnect} data-testid="reconnect">
            Reconnect
          </Button>
        )}
        {g.status === 'needs-token' && !g.tokenDialog && (
          <Button size="xs" variant="light" onClick={g.openTokenDialog} data-testid="enter-token">
            Enter bearer token
          </Button>
        )}
      </Group>
    </Group>
  );
}

/** The selected version and whether it is stateless, session-based or sessionless legacy. */
function ConnectionDetails({ g }: { g: GatewayState }) {
  const c = g.connection;
  return (
    <Group gap={6} data-testid="connection-details" data-status={g.status} data-version={c?.version ?? ''} data-kind={c?.kind ?? ''}>
      <Badge color={STATUS_COLOR[g.status]} variant="dot" data-testid="connection-status">
        {STATUS_TEXT[g.status]}
      </Badge>
      {c && (
        <Tooltip label={c.how} multiline w={320}>
          <Group gap={6}>
            <Badge variant="outline" data-testid="connection-version">
              {c.version}
            </Badge>
            <Badge variant="light" color={c.era === 'modern' ? 'teal' : 'grape'} data-testid="connection-kind">
              {c.kind}
            </Badge>
          </Group>
        </Tooltip>
      )}
      {g.hasToken && (
        <Text size="xs" c="dimmed" data-testid="token-held">
          bearer token in memory
        </Text>
      )}
    </Group>
  );
}
