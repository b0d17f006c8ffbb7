import { Anchor, Button, Checkbox, Group, Select, Splitter, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { copyText, downloadText } from '../../../lib/browser';
import { clockUs } from '../../../utils/format';
import { historyTarget } from '../../../utils/history';
import { DEFAULT_LOG_LEVEL, LEVELS, exportLogs, filterLogs, logText } from '../../../utils/logs';
import type { HistoryEntry, LogEvent } from '../../../utils/types';
import { LevelBadge } from '../../elements/LevelBadge/LevelBadge';
import { VirtualList } from '../../elements/VirtualList/VirtualList';

export interface LogsScreenProps {
  server: string;
  logs: LogEvent[];
  level: string | null;
  /** Recent requests of this server, for the request filter. */
  recent: HistoryEntry[];
  /** Filter by this request (set from elsewhere, e.g. History). */
  requestFilter: number | null;
  onRequestFilter: (id: number | null) => void;
  onSetLevel: (level: string) => void;
  onClear: () => void;
  onShowInHistory: (id: number) => void;
}

/** Logs: level control, live stream coloured by severity, filters, correlation, export. */
export function LogsScreen(p: LogsScreenProps) {
  const [level, setLevel] = useState<string>(p.level ?? DEFAULT_LOG_LEVEL);
  const [text, setText] = useState('');
  const [levels, setLevels] = useState<Set<string>>(() => new Set(LEVELS));
  const [follow, setFollow] = useState(true);
  const filtered = useMemo(() => filterLogs(p.logs, { text, levels, historyId: p.requestFilter }), [p.logs, text, levels, p.requestFilter]);
  const req = p.requestFilter !== null ? p.recent.find((r) => r.id === p.requestFilter) : undefined;

  const controls = (
    <Stack gap="sm" p="sm" data-testid="log-controls">
      <Title order={5}>Log Controls</Title>
      <Select
        label="Log Level"
        data={LEVELS.map((l) => ({ value: l, label: l }))}
        value={level}
        onChange={(v) => v && setLevel(v)}
        allowDeselect={false}
        data-testid="log-level-select"
        comboboxProps={{ withinPortal: true }}
      />
      <Button size="xs" onClick={() => p.onSetLevel(level)} data-testid="set-level">
        Set Level
      </Button>
      {p.level ? (
        <Text size="xs" c="dimmed" data-testid="current-level" data-level={p.level}>
          Current: {p.level}
        </Text>
      ) : (
        <Text size="xs" c="dimmed" data-testid="current-level" data-level="">
          Not set: the server logs at its own level until you set one.
        </Text>
      )}
      <TextInput label="Filter" value={text} onChange={(e) => setText(e.currentTarget.value)} data-testid="log-filter" />
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          Show Levels
        </Text>
        {LEVELS.map((l) => (
          <Checkbox
            key={l}
            size="xs"
            label={l.toUpperCase()}
            checked={levels.has(l)}
            data-testid="level-checkbox"
            data-level={l}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setLevels((old) => {
                const next = new Set(old);
                if (on) next.add(l);
                else next.delete(l);
                return next;
              });
            }}
          />
        ))}
      </Stack>
      <Select
        label="Request Filter"
        placeholder="All requests"
        clearable
        data={p.recent.map((r) => ({ value: String(r.id), label: `${r.method} ${historyTarget(r)} · ${new Date(r.startedAt).toLocaleTimeString()}` }))}
        value={p.requestFilter !== null ? String(p.requestFilter) : null}
        onChange={(v) => p.onRequestFilter(v === null ? null : Number(v))}
        data-testid="request-filter"
        comboboxProps={{ withinPortal: true }}
      />
      <Group gap="xs">
        <Button size="xs" variant="default" onClick={p.onClear} data-testid="clear-logs">
          Clear
        </Button>
        <Button size="xs" variant="default" onClick={() => downloadText(`mcpscope-logs-${p.server}.ndjson`, exportLogs(filtered), 'application/x-ndjson')} data-testid="export-logs">
          Export
        </Button>
      </Group>
    </Stack>
  );

  const stream = (
    <Stack gap={4} p="sm" h="100%" className="mcpscope-col">
      <Group justify="space-between">
        {req ? (
          <Group gap="xs" data-testid="log-request-filter" data-history-id={req.id}>
            <Text size="sm">
              Showing logs for: {req.method} {historyTarget(req)}
            </Text>
            <Anchor size="sm" component="button" onClick={() => p.onShowInHistory(req.id)} data-testid="view-in-history">
              View in History
            </Anchor>
            <Anchor size="sm" component="button" onClick={() => p.onRequestFilter(null)}>
              Show All Logs
            </Anchor>
          </Group>
        ) : (
          <Text size="sm" c="dimmed" data-testid="log-count" data-count={filtered.length}>
            {filtered.length} of {p.logs.length} log lines
          </Text>
        )}
        <Group gap="xs">
          <Switch size="xs" label="Auto-scroll" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} wrapperProps={{ 'data-testid': 'auto-scroll', 'data-checked': follow ? 'true' : 'false' }} />
          <Button size="compact-xs" variant="default" onClick={() => void copyText(filtered.map((l) => `${clockUs(l.timeUs)} [${l.level.toUpperCase()}] ${l.logger ? l.logger + ': ' : ''}${logText(l.data)}`).join('\n'))}>
            {req ? 'Copy Filtered' : 'Copy All'}
          </Button>
        </Group>
      </Group>
      <div className="mcpscope-grow mcpscope-scroll-host">
        <VirtualList
          testId="log-stream"
          count={filtered.length}
          estimate={26}
          follow={follow}
          onFollowChange={(f) => f !== follow && setFollow(f)}
          row={(i) => {
            const l = filtered[i];
            return (
              <Group gap="xs" wrap="nowrap" px={4} py={2} data-testid="log-line" data-level={l.level.toLowerCase()} data-history-id={l.historyId ?? ''}>
                <Text size="xs" c="dimmed" ff="monospace" w={92}>
                  {clockUs(l.timeUs)}
                </Text>
                <LevelBadge level={l.level} />
                {l.logger && (
                  <Text size="xs" c="dimmed" ff="monospace">
                    {l.logger}
                  </Text>
                )}
                <Text size="xs" ff="monospace" className="mcpscope-grow" truncate>
                  {logText(l.data)}
                </Text>
                {l.historyId !== null && l.historyId !== undefined && (
                  <Anchor size="xs" component="button" onClick={() => p.onRequestFilter(l.historyId ?? null)} data-testid="log-request-link">
                    #{l.historyId}
                  </Anchor>
                )}
              </Group>
            );
          }}
        />
      </div>
    </Stack>
  );

  return (
    <Splitter className="mcpscope-fill" data-testid="screen-logs">
      <Splitter.Pane defaultSize={25} min={15}>
        {controls}
      </Splitter.Pane>
      <Splitter.Pane defaultSize={75} min={40}>
        {stream}
      </Splitter.Pane>
    </Splitter>
  );
}
