import { Alert, Button, Chip, Group, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { FrameWindow } from '../../../utils/frameWindow';
import { SOURCES, filterFrames, pairIndex } from '../../../utils/traffic';
import type { FrameView, WarningEvent } from '../../../utils/types';
import { VirtualList } from '../../elements/VirtualList/VirtualList';
import { FrameRow } from '../../groups/FrameRow/FrameRow';

export interface TrafficScreenProps {
  frames: FrameWindow<FrameView>;
  warnings: WarningEvent[];
  bodyUrl: (seq: number) => string;
  onOlder: () => Promise<void>;
  onNewer: () => Promise<void>;
  onShowInHistory?: (id: number) => void;
}

/** Traffic: every frame live, source filter, request/response pairs, headers verdicts, lint. */
export function TrafficScreen({ frames, warnings, bodyUrl, onOlder, onNewer, onShowInHistory }: TrafficScreenProps) {
  const [sources, setSources] = useState<string[]>(['jsonrpc', 'http', 'stderr', 'oauth', 'lifecycle', 'app']);
  const [text, setText] = useState('');
  const [expanded, setExpanded] = useState<Set<number>>(() => new Set());
  const [follow, setFollow] = useState(true);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [jump, setJump] = useState<number | null>(null);
  const shown = useMemo(() => filterFrames(frames.items, new Set(sources), text), [frames.items, sources, text]);
  const toggle = (seq: number) =>
    setExpanded((old) => {
      const next = new Set(old);
      if (next.has(seq)) next.delete(seq);
      else next.add(seq);
      return next;
    });
  const older = () => {
    if (loadingOlder || !frames.hasOlder) return;
    setLoadingOlder(true);
    void onOlder().finally(() => setLoadingOlder(false));
  };
  // Any banner can be closed; a newer warning shows again.
  const [dismissed, setDismissed] = useState<WarningEvent | null>(null);
  const last = warnings[warnings.length - 1];
  const lastWarning = last !== dismissed ? last : undefined;

  return (
    <Stack gap="xs" p="sm" h="100%" className="mcpscope-col" data-testid="screen-traffic">
      <Group justify="space-between">
        <Group gap="xs">
          <Text size="sm" fw={600}>
            Source
          </Text>
          <Chip.Group multiple value={sources} onChange={setSources}>
            <Group gap={4} data-testid="source-filter">
              {SOURCES.map((s) => (
                <Chip
                  key={s.value}
                  value={s.value}
                  size="xs"
                  wrapperProps={{ 'data-testid': 'source-chip', 'data-source': s.value, 'data-checked': sources.includes(s.value) ? 'true' : 'false' }}
                >
                  {s.label}
                </Chip>
              ))}
            </Group>
          </Chip.Group>
          <TextInput size="xs" placeholder="Search method or body…" value={text} onChange={(e) => setText(e.currentTarget.value)} data-testid="traffic-search" />
        </Group>
        <Group gap="xs">
          <Text size="xs" c="dimmed" data-testid="frame-count" data-count={shown.length}>
            {shown.length} shown · {frames.items.length} in view{frames.hasOlder ? ' · older in history' : ''}
          </Text>
          <Switch size="xs" label="Follow" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} wrapperProps={{ 'data-testid': 'follow', 'data-checked': follow ? 'true' : 'false' }} />
        </Group>
      </Group>
      {lastWarning && (
        <Alert color="yellow" p={4} data-testid="traffic-warning" withCloseButton closeButtonLabel="Dismiss warning" onClose={() => setDismissed(last)}>
          <Text size="xs">{lastWarning.message}</Text>
        </Alert>
      )}
      {frames.hasOlder && (
        <Group>
          <Button size="compact-xs" variant="subtle" loading={loadingOlder} onClick={older} data-testid="load-older">
            Load older frames
          </Button>
        </Group>
      )}
      <div className="mcpscope-grow mcpscope-scroll-host">
        <VirtualList
          testId="frame-list"
          count={shown.length}
          estimate={28}
          follow={follow}
          scrollToIndex={jump}
          onFollowChange={(f) => f !== follow && setFollow(f)}
          onNearTop={frames.hasOlder ? older : undefined}
          rowKey={(i) => shown[i].seq}
          row={(i) => {
            const f = shown[i];
            const pair = f.message === 'request' || f.message === 'response' || f.message === 'error' ? pairIndex(shown, i) : -1;
            return (
              <FrameRow
                frame={f}
                expanded={expanded.has(f.seq)}
                onToggle={() => toggle(f.seq)}
                bodyUrl={bodyUrl(f.seq)}
                onShowInHistory={onShowInHistory}
                onJumpToPair={
                  pair >= 0
                    ? () => {
                        setFollow(false);
                        setExpanded((old) => new Set(old).add(shown[pair].seq));
                        setJump(pair);
                      }
                    : undefined
                }
              />
            );
          }}
        />
      </div>
      {frames.hasNewer && (
        <Group>
          <Button size="compact-xs" variant="light" onClick={() => void onNewer()} data-testid="load-newer">
            Newer frames were left out while reading older ones: load them
          </Button>
        </Group>
      )}
    </Stack>
  );
}
