// Tools (002 "Using the inspector"): find a tool by name, the backend server it comes from,
// Refresh tools (tools/list again without reconnecting), the schema-generated inputs, optional
// `_meta` key-value pairs, Validate only and Run tool, then the Output card. The inputs and the
// check are the backend's (`forms.ts`: `POST /api/form`, `/api/validate`), never the gateway's.
import { ActionIcon, Alert, Badge, Button, Card, Grid, Group, Loader, ScrollArea, Stack, Text, TextInput, Tooltip, UnstyledButton } from '@mantine/core';
import { useMemo, useState } from 'react';
import { SchemaForm } from '../../components/groups/SchemaForm/SchemaForm';
import type { FieldError, Json, JsonObject } from '../../utils/types';
import type { Tool } from '../client';
import { checkArguments, reasonOf, useArgumentsForm } from '../forms';
import { metaObject, serverOf } from '../present';
import type { GatewayState } from '../useGateway';
import { OutputCard } from './OutputCard';

/** 002's words for an optional boolean's three choices. */
export const TRI_STATE = { unset: 'Not set', true: 'True', false: 'False' };

export function ToolsPanel({ g }: { g: GatewayState }) {
  const [search, setSearch] = useState('');
  const servers = g.info?.servers;
  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    return q === '' ? g.tools : g.tools.filter((t) => t.name.toLowerCase().includes(q));
  }, [g.tools, search]);
  const selected = g.tools.find((t) => t.name === g.selectedTool);
  return (
    <Grid gap="md" data-testid="tools-panel">
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Stack gap="xs">
          <Group gap="xs" wrap="nowrap">
            <TextInput
              className="mcpscope-grow"
              placeholder="Find a tool by name"
              value={search}
              onChange={(e) => setSearch(e.currentTarget.value)}
              data-testid="tool-search"
            />
            <Tooltip label="Refresh tools (tools/list, no reconnect)">
              <ActionIcon
                variant="default"
                size="lg"
                aria-label="Refresh tools"
                loading={g.toolsLoading}
                disabled={g.status !== 'connected'}
                onClick={g.refreshTools}
                data-testid="refresh-tools"
              >
                ↻
              </ActionIcon>
            </Tooltip>
          </Group>
          <Text size="xs" c="dimmed" data-testid="tools-count" data-count={g.tools.length} data-loading={g.toolsLoading || undefined}>
            {g.tools.length} tools{search ? `, ${shown.length} shown` : ''}
          </Text>
          {g.excluded.length > 0 && (
            <Alert color="yellow" p="xs" title={`${g.excluded.length} excluded: invalid x-mcp-header`} data-testid="excluded-tools" data-count={g.excluded.length}>
              {g.excluded.map((x) => (
                <Text size="xs" key={x.name} data-testid="excluded-tool" data-tool={x.name}>
                  {x.name}: {x.reason}
                </Text>
              ))}
            </Alert>
          )}
          <ScrollArea.Autosize mah="calc(100vh - 260px)">
            <Stack gap={4} data-testid="tool-list" data-count={shown.length}>
              {shown.map((t) => (
                <ToolItem key={t.name} tool={t} server={serverOf(t.name, servers)} selected={t.name === g.selectedTool} onSelect={() => g.selectTool(t.name)} />
              ))}
            </Stack>
          </ScrollArea.Autosize>
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Stack gap="md">
          {selected ? (
            <ToolDetail key={`${selected.name}`} tool={selected} server={serverOf(selected.name, servers)} g={g} />
          ) : (
            <Text size="sm" c="dimmed" data-testid="no-tool">
              Select a tool.
            </Text>
          )}
          <OutputCard output={g.toolOutput} onClear={g.clearToolOutput} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}

function ToolItem({ tool, server, selected, onSelect }: { tool: Tool; server?: string; selected: boolean; onSelect: () => void }) {
  return (
    <UnstyledButton onClick={onSelect} data-testid="tool-item" data-tool={tool.name} data-server={server ?? ''} data-selected={selected}>
      <Card withBorder p="xs" bg={selected ? 'var(--mantine-color-blue-light)' : undefined}>
        <Group gap="xs" justify="space-between" wrap="nowrap">
          <Text size="sm" fw={500} truncate>
            {tool.name}
          </Text>
          {server && (
            <Badge size="sm" variant="light" color="gray" data-testid="tool-server">
              {server}
            </Badge>
          )}
        </Group>
        {tool.description && (
          <Text size="xs" c="dimmed" lineClamp={2}>
            {tool.description}
          </Text>
        )}
      </Card>
    </UnstyledButton>
  );
}

/** Validate only's verdict: no problems, some, or not checked (the backend would not use the
 *  schema, or could not be asked: the gateway still checks the call). */
type Verdict = 'valid' | 'invalid' | 'unchecked';

function ToolDetail({ tool, server, g }: { tool: Tool; server?: string; g: GatewayState }) {
  const schema = (tool.inputSchema ?? { type: 'object' }) as Json;
  const { form, problem, value, setValue } = useArgumentsForm(schema);
  const [meta, setMeta] = useState<{ key: string; value: string }[]>([]);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [verdict, setVerdict] = useState<Verdict | undefined>();
  const [checking, setChecking] = useState(false);
  const args = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as JsonObject;
  /** The backend's check; Run tool goes on unless it found problems. */
  const check = async (): Promise<Verdict> => {
    setChecking(true);
    let v: Verdict;
    try {
      const found = await checkArguments(schema, args);
      setErrors(found);
      v = found.length === 0 ? 'valid' : 'invalid';
    } catch (e) {
      setErrors([{ path: '', message: `not checked here: ${reasonOf(e)}` }]);
      v = 'unchecked';
    }
    setChecking(false);
    setVerdict(v);
    return v;
  };
  const run = async () => {
    if ((await check()) !== 'invalid') void g.runTool(tool.name, args, metaObject(meta));
  };
  return (
    <Card withBorder data-testid="tool-detail" data-tool={tool.name}>
      <Stack gap="sm">
        <Group gap="xs">
          <Text fw={600}>{tool.title ?? tool.name}</Text>
          {server && (
            <Badge variant="light" color="gray" data-testid="tool-detail-server">
              server: {server}
            </Badge>
          )}
        </Group>
        {tool.description && (
          <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
            {tool.description}
          </Text>
        )}
        {problem && (
          <Alert color="yellow" p="xs" data-testid="form-problem">
            <Text size="xs">The form could not be built ({problem}); the arguments are edited as JSON.</Text>
          </Alert>
        )}
        {form ? (
          <SchemaForm
            field={form}
            value={value}
            onChange={(v) => {
              setValue(v);
              setVerdict(undefined);
            }}
            errors={errors}
            triStateLabels={TRI_STATE}
          />
        ) : (
          <Loader size="sm" data-testid="form-loading" />
        )}
        <MetaEditor rows={meta} onChange={setMeta} />
        <Group gap="xs">
          <Button variant="default" onClick={() => void check()} loading={checking} disabled={!form} data-testid="validate">
            Validate only
          </Button>
          <Button onClick={() => void run()} loading={g.running} disabled={g.status !== 'connected' || !form || checking} data-testid="run-tool">
            Run tool
          </Button>
          {verdict !== undefined && (
            <Badge color={verdict === 'valid' ? 'green' : verdict === 'invalid' ? 'red' : 'yellow'} data-testid="validation-result" data-valid={verdict === 'valid'} data-verdict={verdict}>
              {verdict === 'valid' ? 'valid' : verdict === 'unchecked' ? 'not checked' : `${errors.length} problem${errors.length === 1 ? '' : 's'}`}
            </Badge>
          )}
        </Group>
      </Stack>
    </Card>
  );
}

/** Optional `_meta` key-value pairs; the inspector's own protocol fields are added on top. */
function MetaEditor({ rows, onChange }: { rows: { key: string; value: string }[]; onChange: (rows: { key: string; value: string }[]) => void }) {
  const set = (i: number, patch: Partial<{ key: string; value: string }>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Stack gap={4} data-testid="meta-editor" data-count={rows.length}>
      <Group gap="xs">
        <Text size="sm" fw={500}>
          _meta
        </Text>
        <Text size="xs" c="dimmed">
          optional; the protocol version, client identity and capabilities are always added
        </Text>
        <Button size="compact-xs" variant="light" onClick={() => onChange([...rows, { key: '', value: '' }])} data-testid="meta-add">
          + Add
        </Button>
      </Group>
      {rows.map((r, i) => (
        <Group key={i} gap="xs" wrap="nowrap" data-testid="meta-row">
          <TextInput size="xs" placeholder="key" value={r.key} onChange={(e) => set(i, { key: e.currentTarget.value })} data-testid="meta-key" />
          <TextInput size="xs" className="mcpscope-grow" placeholder="value (text or JSON)" value={r.value} onChange={(e) => set(i, { value: e.currentTarget.value })} data-testid="meta-value" />
          <ActionIcon variant="subtle" color="red" aria-label="Remove" onClick={() => onChange(rows.filter((_, j) => j !== i))} data-testid="meta-remove">
            ✕
          </ActionIcon>
        </Group>
      ))}
    </Stack>
  );
}
