import { Badge, Button, Group, Menu, Select, Stack, Tabs, Text, Title, Tooltip, UnstyledButton } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { PROTOCOL_CHOICES } from '../../../utils/status';
import type { EraPreference, ServerView, TabId } from '../../../utils/types';
import { StatusDot } from '../../elements/StatusDot/StatusDot';

export const TABS: { id: TabId; label: string }[] = [
  { id: 'tools', label: 'Tools' },
  { id: 'apps', label: 'Apps' },
  { id: 'resources', label: 'Resources' },
  { id: 'prompts', label: 'Prompts' },
  { id: 'logs', label: 'Logs' },
  { id: 'tasks', label: 'Tasks' },
  { id: 'history', label: 'History' },
  { id: 'traffic', label: 'Traffic' },
  { id: 'experimental', label: 'Experimental' },
];

/** Below this window width the tabs get a row of their own under the bar: all nine beside the
 *  server menu, status, protocol selector and Disconnect need about this much, and a tab hidden
 *  behind the selector (or scrolled out of sight) is a tab a newcomer never finds. */
const ONE_ROW_MIN_WIDTH = 1440;
const ROW_HEIGHT = 56;
const TABS_ROW_HEIGHT = 40;

/** The bar's height: one row, or two when a server's tabs do not fit beside the rest. */
export function useTopBarHeight(withTabs: boolean): number {
  const wide = useMediaQuery(`(min-width: ${ONE_ROW_MIN_WIDTH}px)`, true, { getInitialValueInEffect: false });
  return withTabs && !wide ? ROW_HEIGHT + TABS_ROW_HEIGHT : ROW_HEIGHT;
}

export interface TopBarProps {
  /** The server being inspected; null on the server list. */
  server: ServerView | null;
  servers: ServerView[];
  tab: TabId;
  protocol: EraPreference;
  stream: 'connecting' | 'open' | 'error';
  onTab: (tab: TabId) => void;
  onSelectServer: (name: string | null) => void;
  onProtocol: (p: EraPreference) => void;
  onDisconnect: () => void;
  onInfo: () => void;
  /** Questions waiting for an answer, every server. */
  pending: number;
  /** Show them all (the pending modal). */
  onPending: () => void;
}

/** [Server ▼] ● Connected (23ms) [tabs] [protocol] [Disconnect] (003_* navigation model). */
export function TopBar({ server, servers, tab, protocol, stream, onTab, onSelectServer, onProtocol, onDisconnect, onInfo, pending, onPending }: TopBarProps) {
  const twoRows = useTopBarHeight(!!server) > ROW_HEIGHT;
  const tabs = server && (
    <Tabs value={tab} onChange={(t) => t && onTab(t as TabId)} variant="pills" radius="sm" className="mcpscope-grow">
      <Tabs.List className="mcpscope-tabs">
        {TABS.map((t) => (
          <Tabs.Tab key={t.id} value={t.id} data-testid={`tab-${t.id}`}>
            {t.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
    </Tabs>
  );
  return (
    <Stack h="100%" gap={0} data-testid="top-bar" data-rows={twoRows ? 2 : 1}>
      <Group h={ROW_HEIGHT} px="md" justify="space-between" wrap="nowrap" gap="md">
        <Group gap="md" wrap="nowrap">
          <UnstyledButton onClick={() => onSelectServer(null)} data-testid="home">
            <Title order={4}>mcpscope</Title>
          </UnstyledButton>
          {server && (
            <Menu position="bottom-start" withinPortal>
              <Menu.Target>
                <Button variant="subtle" size="compact-md" rightSection="▾" maw={220} title={server.name} data-testid="server-menu" data-server={server.name}>
                  {server.name}
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={onInfo} data-testid="menu-server-info">
                  Server Info
                </Menu.Item>
                <Menu.Divider />
                <Menu.Label>Switch server</Menu.Label>
                {servers
                  .filter((s) => s.status === 'connected' && s.name !== server.name)
                  .map((s) => (
                    <Menu.Item key={s.name} onClick={() => onSelectServer(s.name)}>
                      {s.name}
                    </Menu.Item>
                  ))}
                <Menu.Item onClick={() => onSelectServer(null)}>All servers…</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          )}
          {server && <StatusDot server={server} withLatency />}
        </Group>
        {!twoRows && tabs}
        <Group gap="sm" wrap="nowrap">
          {pending > 0 && (
            <Tooltip label="Questions from servers waiting for an answer (any server): show them">
              <Badge
                component="button"
                color="orange"
                variant="filled"
                className="mcpscope-pending-badge"
                onClick={onPending}
                data-testid="pending-badge"
                data-count={pending}
              >
                {pending} pending
              </Badge>
            </Tooltip>
          )}
          {stream !== 'open' && (
            <Badge color={stream === 'error' ? 'red' : 'yellow'} data-testid="stream-state" data-state={stream}>
              {stream === 'error' ? 'backend unreachable' : 'connecting to backend…'}
            </Badge>
          )}
          {server && (
            <>
              <Group gap={4} wrap="nowrap">
                <Text size="xs" c="dimmed">
                  Protocol
                </Text>
                <Select
                  size="xs"
                  w={120}
                  value={protocol}
                  data={PROTOCOL_CHOICES.map((c) => ({ value: c.value, label: c.label }))}
                  allowDeselect={false}
                  onChange={(v) => v && v !== protocol && onProtocol(v as EraPreference)}
                  data-testid="protocol-select"
                  aria-label="Protocol"
                />
              </Group>
              <Button size="xs" variant="light" color="red" onClick={onDisconnect} data-testid="disconnect">
                Disconnect
              </Button>
            </>
          )}
        </Group>
      </Group>
      {twoRows && (
        <Group h={TABS_ROW_HEIGHT} px="md" wrap="nowrap" data-testid="tabs-row">
          {tabs}
        </Group>
      )}
    </Stack>
  );
}
