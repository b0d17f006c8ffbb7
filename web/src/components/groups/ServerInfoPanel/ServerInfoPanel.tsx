import { Alert, Badge, Code, Divider, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { eraMode } from '../../../utils/status';
import type { Json, JsonObject, ServerInfo, ServerView } from '../../../utils/types';
import { JsonView } from '../../elements/JsonView/JsonView';
import { RootsEditor } from './RootsEditor';
import { ServerProfileChoice } from '../TestingProfiles/ServerProfileChoice';

export interface ServerInfoPanelProps {
  server: ServerView;
  info: ServerInfo | null;
  /** Counts of what the lists returned, when known. */
  counts?: { tools?: number; resources?: number; prompts?: number };
  /** The Authorization panel (HTTP/SSE OAuth), drawn last. */
  authPanel?: ReactNode;
}

const SERVER_CAPS = ['tools', 'resources', 'prompts', 'logging', 'completions', 'tasks', 'experimental'] as const;
const CLIENT_CAPS = ['sampling', 'elicitation', 'roots', 'tasks', 'experimental'] as const;

/** One capability, ✓ or ✗, with its count when known and the flags it declares. */
function capLine(name: string, caps: JsonObject | null | undefined, count?: number) {
  const has = !!caps && caps[name] !== undefined && caps[name] !== null;
  const detail = has && caps ? (caps[name] as Json) : undefined;
  const flags =
    detail && typeof detail === 'object' && !Array.isArray(detail)
      ? Object.entries(detail)
          .filter(([, v]) => v === true)
          .map(([k]) => k)
      : [];
  return (
    <Text size="sm" key={name} data-testid="capability" data-capability={name} data-present={has ? 'true' : 'false'}>
      <Text span c={has ? 'green' : 'dimmed'} fw={700}>
        {has ? '✓' : '✗'}
      </Text>{' '}
      {name[0].toUpperCase() + name.slice(1)}
      {count !== undefined && has ? ` (${count})` : ''}
      {flags.length > 0 && (
        <Text span size="xs" c="dimmed">
          {' '}
          · {flags.join(', ')}
        </Text>
      )}
    </Text>
  );
}

/** Server Info: name, version, protocol and era, transport, capabilities both ways, instructions. */
export function ServerInfoPanel({ server, info, counts = {}, authPanel }: ServerInfoPanelProps) {
  // The roots the server is answered with, as the editor below last read or saved them.
  const [roots, setRoots] = useState<number>(server.entry.roots?.length ?? 0);
  if (!info) {
    return (
      <Stack gap="xs" data-testid="server-info-panel" data-connected="false">
        <Text size="sm" c="dimmed">
          Not connected. Connect to see what the server offers.
        </Text>
        <Text size="sm">Configuration:</Text>
        <JsonView value={server.entry} expandAll />
        <RootsEditor server={server.name} configured={server.entry.roots} onCount={setRoots} />
        {authPanel}
      </Stack>
    );
  }
  const si = info.serverInfo ?? {};
  const countFor: Record<string, number | undefined> = counts;
  return (
    <Stack gap="sm" data-testid="server-info-panel" data-connected="true">
      <Table withRowBorders={false} verticalSpacing={2} fz="sm">
        <Table.Tbody>
          <Table.Tr>
            <Table.Td w={140} c="dimmed">Name</Table.Td>
            <Table.Td data-testid="info-name">{String(si.title ?? si.name ?? server.name)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Td c="dimmed">Version</Table.Td>
            <Table.Td>{String(si.version ?? '')}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Td c="dimmed">Protocol</Table.Td>
            <Table.Td>
              <Group gap="xs">
                <Text size="sm" data-testid="info-protocol">{info.protocolVersion}</Text>
                <Badge color={info.era === 'modern' ? 'violet' : 'blue'} data-testid="info-era">
                  {info.era} · {eraMode(info)}
                </Badge>
              </Group>
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Td c="dimmed">Transport</Table.Td>
            <Table.Td>{info.transport}</Table.Td>
          </Table.Tr>
          {info.sessionId && (
            <Table.Tr>
              <Table.Td c="dimmed">Session</Table.Td>
              <Table.Td>
                <Code>{info.sessionId}</Code>
              </Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
      <SimpleGrid cols={2}>
        <Stack gap={2}>
          <Title order={6}>Server Capabilities</Title>
          <Divider />
          {SERVER_CAPS.map((c) => capLine(c, info.capabilities, countFor[c]))}
        </Stack>
        <Stack gap={2}>
          <Title order={6}>Client Capabilities</Title>
          <Divider />
          {CLIENT_CAPS.map((c) => capLine(c, info.clientCapabilities ?? null, c === 'roots' ? roots : undefined))}
        </Stack>
      </SimpleGrid>
      {info.instructions && (
        <Stack gap={2}>
          <Title order={6}>Server Instructions</Title>
          <Divider />
          <Text size="sm" className="mcpscope-pre" data-testid="info-instructions">
            {info.instructions}
          </Text>
        </Stack>
      )}
      {info.notes && info.notes.length > 0 && (
        <Alert color="gray" p="xs" title="How the connection was decided">
          {info.notes.map((n, i) => (
            <Text size="xs" key={i}>
              {n}
            </Text>
          ))}
        </Alert>
      )}
      <RootsEditor server={server.name} configured={server.entry.roots} onCount={setRoots} />
      <ServerProfileChoice server={server.name} />
      {authPanel}
    </Stack>
  );
}
