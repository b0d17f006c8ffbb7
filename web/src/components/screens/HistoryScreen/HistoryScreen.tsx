import { Button, Divider, EmptyState, Group, Loader, ScrollArea, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { downloadUrl } from '../../../lib/browser';
import { foldCompletions, methodType, replayTab, upsertEntry } from '../../../utils/history';
import type { HistoryEntry } from '../../../utils/types';
import { ConfirmModal } from '../../groups/ConfirmModal/ConfirmModal';
import { HistoryRow } from '../../groups/HistoryRow/HistoryRow';

export interface HistoryQueryArgs {
  q?: string;
  server?: string;
  method?: string;
  status?: string;
  from?: string;
  pinned?: boolean;
  before?: number;
  limit?: number;
}

export interface HistoryScreenProps {
  server: string;
  /** Entries that arrived live (history events), newest first. */
  live: HistoryEntry[];
  /** Expand and scroll to this entry (from "View in History"). */
  focusId: number | null;
  onQuery: (q: HistoryQueryArgs) => Promise<{ entries: HistoryEntry[]; nextBefore: number | null }>;
  onDetail: (id: number) => Promise<HistoryEntry>;
  onReplay: (e: HistoryEntry) => void;
  onPin: (id: number, label: string) => Promise<HistoryEntry>;
  onUnpin: (id: number) => Promise<HistoryEntry>;
  onClear: () => Promise<unknown>;
  exportUrl: (q: HistoryQueryArgs) => string;
  resultUrl: (id: number) => string;
  onShowLogs: (id: number) => void;
}

/** Rows whose client requests the trace draws (their details are read for it). */
const TRACE_ROWS = 50;

const RANGES: Record<string, number> = { '15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000 };

/** History: request tree, Replay, Pin with label, full-text search, filters, Clear, Export. */
export function HistoryScreen(p: HistoryScreenProps) {
  const [q, setQ] = useState('');
  const [type, setType] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [range, setRange] = useState<string | null>(null);
  const [allServers, setAllServers] = useState(false);
  // The request trace (003): the client requests a call caused drawn under it; off, the flat view.
  const [childRequests, setChildRequests] = useState(true);
  const [entries, setEntries] = useState<HistoryEntry[] | null>(null);
  const [pinned, setPinned] = useState<HistoryEntry[]>([]);
  const [nextBefore, setNextBefore] = useState<number | null>(null);
  const [expanded, setExpanded] = useState<Set<number>>(() => new Set());
  const [details, setDetails] = useState<Record<number, HistoryEntry>>({});
  const [confirm, setConfirm] = useState(false);
  const [version, setVersion] = useState(0);

  const query: HistoryQueryArgs = useMemo(
    () => ({
      q: q.trim() || undefined,
      server: allServers ? undefined : p.server,
      status: status ?? undefined,
      from: range ? new Date(Date.now() - RANGES[range]).toISOString() : undefined,
    }),
    [q, allServers, p.server, status, range],
  );
  const filtering = !!(query.q || query.status || type || query.from);

  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      p.onQuery({ ...query, limit: 100 })
        .then((r) => {
          if (!live) return;
          setEntries(r.entries);
          setNextBefore(r.nextBefore);
        })
        .catch(() => live && setEntries([]));
      p.onQuery({ server: query.server, pinned: true, limit: 100 })
        .then((r) => live && setPinned(r.entries))
        .catch(() => undefined);
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [query, version, p.onQuery]);

  const toggle = (id: number, pinnedSection = false) => {
    const key = pinnedSection ? -id : id;
    setExpanded((old) => {
      const next = new Set(old);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
    if (!details[id]) void p.onDetail(id).then((d) => setDetails((old) => ({ ...old, [id]: d })));
  };

  // "View in History": expand the focused entry (adjusting state during render).
  const [focusSeen, setFocusSeen] = useState<number | null>(null);
  if (p.focusId !== null && p.focusId !== focusSeen) {
    setFocusSeen(p.focusId);
    const id = p.focusId;
    setExpanded((old) => new Set(old).add(id));
    if (!details[id]) void p.onDetail(id).then((d) => setDetails((old) => ({ ...old, [id]: d })));
  }

  // Live entries join the list when no filter hides them.
  const shown = useMemo(() => {
    let list = entries ?? [];
    if (!filtering) {
      for (const e of [...p.live].reverse()) {
        if (allServers || e.server === p.server) list = upsertEntry(list, e);
      }
    } else {
      const known = new Map(p.live.map((e) => [e.id, e]));
      list = list.map((e) => ({ ...e, ...(known.get(e.id) ?? {}) }));
    }
    if (type) list = list.filter((e) => methodType(e.method) === type);
    return list.filter((e) => !e.parentId);
  }, [entries, p.live, filtering, allServers, p.server, type]);

  const replaceEverywhere = (e: HistoryEntry) => {
    setEntries((old) => (old ?? []).map((x) => (x.id === e.id ? { ...x, ...e } : x)));
    setPinned((old) => (e.pinned ? upsertEntry(old.filter((x) => x.id !== e.id), e) : old.filter((x) => x.id !== e.id)));
  };

  const lines = useMemo(() => foldCompletions(shown), [shown]);

  // The trace needs each finished parent's children: read once per entry and status, for the
  // first rows only, so a long history costs a bounded number of reads.
  const traced = useRef(new Set<string>());
  useEffect(() => {
    if (!childRequests) return;
    for (const { entry: e } of lines.slice(0, TRACE_ROWS)) {
      const key = `${e.id}:${e.status}`;
      if (e.status === 'pending' || replayTab(e.method) === null || traced.current.has(key)) continue;
      traced.current.add(key);
      p.onDetail(e.id).then(
        (d) => setDetails((old) => ({ ...old, [e.id]: d })),
        () => traced.current.delete(key),
      );
    }
  }, [childRequests, lines, p.onDetail]);

  const row = (e: HistoryEntry, pinnedSection = false, folded = 0) => (
    <HistoryRow
      key={e.id}
      entry={e}
      folded={folded}
      detail={details[e.id] ?? null}
      expanded={expanded.has(pinnedSection ? -e.id : e.id)}
      focused={!pinnedSection && p.focusId === e.id}
      resultUrl={p.resultUrl(e.id)}
      onToggle={() => toggle(e.id, pinnedSection)}
      onReplay={() => p.onReplay(e)}
      onPin={(label) => void p.onPin(e.id, label).then(replaceEverywhere)}
      onUnpin={() => void p.onUnpin(e.id).then(replaceEverywhere)}
      onShowLogs={() => p.onShowLogs(e.id)}
      childRequests={childRequests && !pinnedSection}
    />
  );

  return (
    <Stack gap="xs" p="sm" h="100%" className="mcpscope-col" data-testid="screen-history">
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={5}>History</Title>
          <TextInput size="xs" w={260} placeholder="Search methods, parameters, responses…" value={q} onChange={(e) => setQ(e.currentTarget.value)} data-testid="history-search" />
          <Select
            size="xs"
            w={130}
            placeholder="Method type"
            clearable
            value={type}
            onChange={setType}
            data={['tools', 'resources', 'prompts', 'completion', 'logging', 'sampling', 'elicitation', 'tasks', 'other']}
            data-testid="history-type"
            comboboxProps={{ withinPortal: true }}
          />
          <Select
            size="xs"
            w={120}
            placeholder="Status"
            clearable
            value={status}
            onChange={setStatus}
            data={[
              { value: 'ok', label: 'success' },
              { value: 'error', label: 'error' },
              { value: 'cancelled', label: 'cancelled' },
              { value: 'pending', label: 'pending' },
            ]}
            data-testid="history-status-filter"
            comboboxProps={{ withinPortal: true }}
          />
          <Select
            size="xs"
            w={120}
            placeholder="Any time"
            clearable
            value={range}
            onChange={setRange}
            data={[
              { value: '15m', label: 'last 15 min' },
              { value: '1h', label: 'last hour' },
              { value: '24h', label: 'last 24 h' },
            ]}
            comboboxProps={{ withinPortal: true }}
          />
          <Switch size="xs" label="All servers" checked={allServers} onChange={(e) => setAllServers(e.currentTarget.checked)} />
          <Switch
            size="xs"
            label="Child requests"
            checked={childRequests}
            onChange={(e) => setChildRequests(e.currentTarget.checked)}
            wrapperProps={{ 'data-testid': 'history-child-switch', 'data-checked': childRequests ? 'true' : 'false' }}
          />
        </Group>
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={() => downloadUrl('mcpscope-history.json', p.exportUrl(query))} data-testid="history-export">
            Export JSON
          </Button>
          <Button size="xs" variant="light" color="red" onClick={() => setConfirm(true)} data-testid="history-clear">
            Clear All
          </Button>
        </Group>
      </Group>
      <ScrollArea className="mcpscope-grow" type="auto">
        {/* Pinned first: what the user chose to keep is what they come back for. */}
        <Divider mb="xs" label={`Pinned Requests (${pinned.length})`} labelPosition="left" />
        <Stack gap={0} data-testid="pinned-list" data-count={pinned.length}>
          {pinned.length === 0 ? (
            <Text size="xs" c="dimmed">
              Pin a request to keep it across restarts.
            </Text>
          ) : (
            pinned.map((e) => row(e, true))
          )}
        </Stack>
        <Divider my="xs" label="Requests" labelPosition="left" />
        <Stack gap={0} data-testid="history-list" data-count={shown.length} data-loaded={entries === null ? 'false' : 'true'}>
          {entries === null ? (
            <Loader size="sm" />
          ) : shown.length === 0 ? (
            <EmptyState title={filtering ? 'Nothing matches' : 'No requests yet'} description="Every request you make shows up here." />
          ) : (
            lines.map((l) => row(l.entry, false, l.folded))
          )}
          {nextBefore !== null && (
            <Group mt="xs">
              <Button
                size="compact-xs"
                variant="subtle"
                onClick={() =>
                  void p.onQuery({ ...query, before: nextBefore, limit: 100 }).then((r) => {
                    setEntries((old) => [...(old ?? []), ...r.entries]);
                    setNextBefore(r.nextBefore);
                  })
                }
              >
                Load more
              </Button>
            </Group>
          )}
        </Stack>
      </ScrollArea>
      <ConfirmModal
        opened={confirm}
        title="Clear history"
        message={`Delete every request in the history${allServers ? '' : ` of ${p.server}`}? Pinned requests are kept.`}
        confirmLabel="Clear"
        onClose={() => setConfirm(false)}
        onConfirm={() => void p.onClear().then(() => setVersion((v) => v + 1))}
      />
    </Stack>
  );
}
