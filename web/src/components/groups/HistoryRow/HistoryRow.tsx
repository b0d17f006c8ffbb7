// One entry of the History screen: the request's line (time, method, target, status, duration,
// server, Replay, Pin) and, expanded, its parameters, response or error, and what it caused.

import { ActionIcon, Alert, Anchor, Badge, Button, Collapse, Group, Loader, Popover, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { duration } from '../../../utils/format';
import { childSummary, historyTarget, offsetLabel, replayTab, statusColor } from '../../../utils/history';
import { historyRounds } from '../../../utils/rounds';
import type { HistoryEntry, Json } from '../../../utils/types';
import { JsonView } from '../../elements/JsonView/JsonView';
import { TruncatedText } from '../../elements/TruncatedText/TruncatedText';

/** Column widths (px) shared by every row. */
const COL = { method: 210, status: 84, duration: 60, server: 90, replay: 56, pin: 56 };

export interface HistoryRowProps {
  entry: HistoryEntry;
  /** Older completions of the same field folded into this line (typed key by key). */
  folded?: number;
  /** The entry with children and frames, once fetched. */
  detail: HistoryEntry | null;
  expanded: boolean;
  focused: boolean;
  resultUrl: string;
  onToggle: () => void;
  onReplay: () => void;
  onPin: (label: string) => void;
  onUnpin: () => void;
  onShowLogs: () => void;
  /** Draw the client requests it caused (sampling, elicitation, roots) under the line without
   *  expanding it, as 003's request trace; false: the flat view, one line per request. */
  childRequests?: boolean;
}

/** One request of the History tree: a parent with its children nested at time offsets (the
 *  server's questions grouped by `input_required` round, 003's request trace). */
export function HistoryRow({ entry: e, folded = 0, detail, expanded, focused, resultUrl, onToggle, onReplay, onPin, onUnpin, onShowLogs, childRequests = false }: HistoryRowProps) {
  const [label, setLabel] = useState(e.label ?? '');
  const [pinOpen, setPinOpen] = useState(false);
  const time = new Date(e.startedAt || e.startedAtUs / 1000).toLocaleTimeString([], { hour12: false });
  const children = detail?.children ?? [];
  const asked = childRequests && !expanded ? children.filter((c) => c.kind === 'serverRequest') : [];
  return (
    <Stack
      gap={4}
      px="xs"
      py={4}
      className={focused ? 'mcpscope-row-selected' : undefined}
      data-testid="history-entry"
      data-history-id={e.id}
      data-method={e.method}
      data-status={e.status}
      data-pinned={e.pinned ? 'true' : 'false'}
      data-focused={focused ? 'true' : 'false'}
    >
      <Group gap="xs" wrap="nowrap">
        <UnstyledButton onClick={onToggle} data-testid="history-toggle">
          <Text size="sm" ff="monospace">
            {expanded ? '[v]' : '[>]'}
          </Text>
        </UnstyledButton>
        <Text size="xs" c="dimmed" ff="monospace" w={72}>
          {time}
        </Text>
        {/* Fixed widths (method, status, duration, server, actions) so every row's columns line up. */}
        <Text size="sm" ff="monospace" fw={600} w={COL.method} truncate title={e.method}>
          {e.method}
        </Text>
        <Text size="sm" truncate className="mcpscope-grow" data-testid="history-target">
          {historyTarget(e)}
          {folded > 0 && (
            <Text span c="dimmed" size="xs" data-testid="history-folded" data-folded={folded}>
              {' '}
              (+{folded} earlier as typed)
            </Text>
          )}
          {e.pinned && e.label ? (
            <Text span c="yellow.8" size="xs" data-testid="pin-label">
              {' '}
              ★ “{e.label}”
            </Text>
          ) : e.pinned ? (
            <Text span c="yellow.8" size="xs">
              {' '}
              ★
            </Text>
          ) : null}
        </Text>
        <Group w={COL.status} wrap="nowrap">
          <Badge color={statusColor(e.status)} data-testid="history-status">
            {e.status === 'ok' ? 'success' : e.status}
          </Badge>
        </Group>
        <Text size="xs" c="dimmed" w={COL.duration} ta="right">
          {duration(e.durationMs)}
        </Text>
        <Text size="xs" c="dimmed" w={COL.server} truncate>
          {e.server}
        </Text>
        <Group w={COL.replay} wrap="nowrap">
          {replayTab(e.method) && (
            <Button size="compact-xs" variant="default" onClick={onReplay} data-testid="replay">
              Replay
            </Button>
          )}
        </Group>
        <Group w={COL.pin} wrap="nowrap" justify="flex-end">
          {e.pinned ? (
            <Button size="compact-xs" variant="light" color="yellow" onClick={onUnpin} data-testid="unpin">
              Unpin
            </Button>
          ) : (
            <Popover opened={pinOpen} onChange={setPinOpen} withinPortal position="left">
              <Popover.Target>
                <Button size="compact-xs" variant="default" onClick={() => setPinOpen((o) => !o)} data-testid="pin">
                  Pin
                </Button>
              </Popover.Target>
              <Popover.Dropdown>
                <Group gap="xs">
                  <TextInput size="xs" placeholder="Label (optional)" value={label} onChange={(ev) => setLabel(ev.currentTarget.value)} data-testid="pin-label-input" />
                  <ActionIcon
                    variant="filled"
                    aria-label="Pin"
                    data-testid="pin-confirm"
                    onClick={() => {
                      onPin(label);
                      setPinOpen(false);
                    }}
                  >
                    ★
                  </ActionIcon>
                </Group>
              </Popover.Dropdown>
            </Popover>
          )}
        </Group>
      </Group>
      {asked.length > 0 && (
        <Stack gap={0} pl="xl" data-testid="history-child-requests">
          <RequestTree items={asked} />
        </Stack>
      )}
      <Collapse expanded={expanded}>
        <Stack gap={4} pl="xl" data-testid="history-detail">
          {e.params !== undefined && e.params !== null && (
            <>
              <Text size="xs" fw={600}>
                Parameters
              </Text>
              <JsonView value={e.params} />
            </>
          )}
          {e.result !== undefined && e.result !== null && (
            <>
              <Group gap="xs">
                <Text size="xs" fw={600}>
                  Response
                </Text>
                {e.truncated && (
                  <Anchor size="xs" href={resultUrl} download={`history-${e.id}.json`}>
                    truncated: download the whole result
                  </Anchor>
                )}
              </Group>
              {e.truncated && typeof e.result === 'string' ? (
                <TruncatedText text={e.result} serverTruncated fullUrl={resultUrl} filename={`history-${e.id}.json`} />
              ) : (
                <JsonView value={e.result} />
              )}
            </>
          )}
          {e.error !== undefined && e.error !== null && (
            <Alert color="red" p="xs" title="Error">
              <JsonView value={e.error} expandAll />
            </Alert>
          )}
          {expanded && !detail && <Loader size="xs" />}
          {children.length > 0 ? (
            <RequestTree items={children} />
          ) : (
            detail && (
              <Text size="xs" c="dimmed">
                (no client requests)
              </Text>
            )
          )}
          <Group gap="xs">
            <Anchor size="xs" component="button" onClick={onShowLogs} data-testid="history-show-logs">
              Logs of this request
            </Anchor>
            {detail?.frames && detail.frames.length > 0 && (
              <Text size="xs" c="dimmed">
                frames #{detail.frames.join(', #')}
              </Text>
            )}
          </Group>
        </Stack>
      </Collapse>
    </Stack>
  );
}

type Child = { kind: string; offsetMs: number; data?: Json };

/** What a request caused, at its time offsets: the server's questions (grouped by round when
 *  they came in `input_required` rounds, with each key and what the server got back), then
 *  its progress, logs and notifications. */
function RequestTree({ items }: { items: Child[] }) {
  const rounds = historyRounds(items);
  const others = items.filter((c) => c.kind !== 'serverRequest');
  const line = (last: boolean) => (last ? '└──' : '├──');
  return (
    <Stack gap={2} data-testid="history-children">
      {rounds.map((r, k) => (
        <Stack key={k} gap={2} data-testid="history-round" data-round={r.round ?? ''}>
          {r.round !== null && (
            <Text size="xs" ff="monospace" fw={600} data-testid="history-round-title">
              {line(k === rounds.length - 1 && others.length === 0)} input_required round {r.round}
              {r.questions.length > 1 ? ` (${r.questions.length} keys)` : ''}
            </Text>
          )}
          {r.questions.map((q, j) => (
            <Group key={j} gap="xs" wrap="nowrap" pl={r.round !== null ? 'lg' : 0} data-testid="history-child" data-kind="serverRequest" data-key={q.key ?? ''} data-outcome={q.outcome}>
              <Text size="xs" ff="monospace" c="dimmed">
                {line(j === r.questions.length - 1)}
              </Text>
              <Text size="xs" ff="monospace">
                {q.method}
                {q.key !== null && ` «${q.key}»`}
              </Text>
              <Text size="xs" c="dimmed" truncate className="mcpscope-grow" data-testid="history-child-answer">
                {q.outcome && `${q.outcome}: `}
                {q.answer}
              </Text>
              <Badge color="gray" tt="none" data-testid="history-child-offset">
                {offsetLabel(q.offsetMs)}
              </Badge>
              {q.answeredAfterMs !== null && (
                <Text size="xs" c="dimmed" data-testid="history-child-answered-after">
                  answered after {duration(q.answeredAfterMs)}
                </Text>
              )}
            </Group>
          ))}
        </Stack>
      ))}
      {others.map((c, i) => {
        const s = childSummary(c);
        return (
          <Group key={i} gap="xs" wrap="nowrap" data-testid="history-child" data-kind={c.kind}>
            <Text size="xs" ff="monospace" c="dimmed">
              {line(i === others.length - 1)}
            </Text>
            <Text size="xs" ff="monospace">
              {s.label}
            </Text>
            <Text size="xs" c="dimmed" truncate className="mcpscope-grow">
              {s.detail}
            </Text>
            <Badge color="gray">{offsetLabel(c.offsetMs)}</Badge>
          </Group>
        );
      })}
    </Stack>
  );
}
