// The Subscriptions panel at the bottom of the Resources screen (000, "Subscription stream
// panel"). Modern: the desired filter (list-changed checkboxes, a watch toggle per resource),
// the stream's details (status, subscription id reported or observed, requested next to
// acknowledged, interests not honoured, close reason, re-listen count) and Cancel stream.
// Legacy: Subscribe / Unsubscribe per URI. Both: updated resources offer a re-read, and the
// history of transitions, graceful and remote closes distinct, rejected notifications shown.
import { Alert, Badge, Button, Checkbox, Divider, Group, ScrollArea, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { Filter, StreamView, SubscriptionsView } from '../../../generated/events';
import type { CallOutcome, JsonObject } from '../../../utils/types';
import { ResourceContent } from '../ResourceContent/ResourceContent';
import {
  KINDS,
  KIND_LABEL,
  STATUS_COLOR,
  STATUS_LABEL,
  emptyFilter,
  filterText,
  isOpen,
  newer,
  subscriptionsApi,
  timeOfDay,
  uriRows,
  withKind,
  withUri,
  type UriRow,
} from './subscriptions';

export interface SubscriptionsPanelProps {
  server: string;
  /** The last `subscriptions` event of this server (null before any). */
  view: SubscriptionsView | null;
  resources: JsonObject[] | null;
  /** Read a resource on the screen (the re-read of an updated one). */
  onRead: (uri: string) => Promise<CallOutcome>;
  /** The server declares `resources.subscribe` (`declaresSubscribe`): else nothing offers
   *  `resources/subscribe`, which it would refuse. */
  canSubscribe: boolean;
}

export function SubscriptionsPanel(p: SubscriptionsPanelProps) {
  const [fetched, setFetched] = useState<SubscriptionsView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [reread, setReread] = useState<{ uri: string; outcome: CallOutcome } | null>(null);
  useEffect(() => {
    let live = true;
    setFetched(null);
    subscriptionsApi.get(p.server).then(
      (v) => live && setFetched(v),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [p.server, p.view?.era]);
  const view = newer(fetched, p.view?.server === p.server ? p.view : null);

  const act = async (f: () => Promise<SubscriptionsView | { subscriptions: SubscriptionsView }>) => {
    setBusy(true);
    setError(null);
    try {
      const out = await f();
      setFetched((cur) => newer(cur, 'subscriptions' in out ? out.subscriptions : out));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const doReread = async (uri: string) => {
    const outcome = await p.onRead(uri);
    setReread({ uri, outcome });
    await act(() => subscriptionsApi.seen(p.server, uri));
  };

  const era = view?.era ?? null;
  const rows = uriRows(p.resources, view);
  return (
    <Stack gap="xs" data-testid="subscriptions-panel" data-era={era ?? 'none'}>
      <Divider />
      <Title order={5}>Subscriptions</Title>
      {error && (
        <Alert color="red" p="xs" data-testid="sub-error" withCloseButton onClose={() => setError(null)}>
          {error}
        </Alert>
      )}
      {era === null && (
        <Text size="sm" c="dimmed">
          Connect the server to manage its subscriptions.
        </Text>
      )}
      {era === 'modern' && view && (
        <Modern view={view} rows={rows} busy={busy} onFilter={(f) => act(() => subscriptionsApi.setFilter(p.server, f))} onCancel={() => act(() => subscriptionsApi.cancel(p.server))} onListen={() => act(() => subscriptionsApi.listen(p.server))} />
      )}
      {era === 'legacy' && !p.canSubscribe && <NoSubscribe />}
      {era === 'legacy' && p.canSubscribe && <Legacy rows={rows} busy={busy} onSubscribe={(uri, on) => act(() => subscriptionsApi.subscribe(p.server, uri, on))} />}
      {view && <Updated rows={rows} onReread={doReread} />}
      {reread && <Reread uri={reread.uri} outcome={reread.outcome} />}
      {view && <History view={view} />}
    </Stack>
  );
}

function Modern(p: { view: SubscriptionsView; rows: UriRow[]; busy: boolean; onFilter: (f: Filter) => void; onCancel: () => void; onListen: () => void }) {
  const desired = p.view.desired ?? emptyFilter();
  const s = p.view.stream;
  const open = isOpen(s?.status);
  return (
    <Stack gap="xs">
      <Text size="sm" fw={600}>
        Desired filter
      </Text>
      <Group gap="md">
        {KINDS.map((k) => (
          <Checkbox
            key={k.key}
            size="xs"
            label={k.label}
            checked={desired[k.key]}
            disabled={p.busy}
            onChange={(e) => p.onFilter(withKind(desired, k.key, e.currentTarget.checked))}
            data-testid={`sub-kind-${k.key}`}
          />
        ))}
      </Group>
      <Stack gap={2}>
        {p.rows.map((r) => (
          <Switch
            key={r.uri}
            size="xs"
            label={
              <Text size="xs" ff="monospace">
                watch {r.uri}
              </Text>
            }
            checked={r.watched}
            disabled={p.busy}
            onChange={(e) => p.onFilter(withUri(desired, r.uri, e.currentTarget.checked))}
            data-testid="sub-watch"
            data-uri={r.uri}
          />
        ))}
      </Stack>
      <ConnectionListen kinds={p.view.connectionListen ?? []} />
      <StreamDetails stream={s} relistens={p.view.relistens} />
      <Group gap="xs">
        <Button size="compact-xs" color="red" variant="light" disabled={!open || p.busy} onClick={p.onCancel} data-testid="sub-cancel">
          Cancel stream
        </Button>
        {!open && s && (
          <Button size="compact-xs" variant="default" disabled={p.busy} onClick={p.onListen} data-testid="sub-listen-again">
            Listen again
          </Button>
        )}
      </Group>
    </Stack>
  );
}

function Row({ label, testId, children }: { label: string; testId: string; children: React.ReactNode }) {
  return (
    <Table.Tr>
      <Table.Td w={190} c="dimmed">
        {label}
      </Table.Td>
      <Table.Td data-testid={testId}>{children}</Table.Td>
    </Table.Tr>
  );
}

/** The connection's own list-changed stream (opened at connect, apart from this panel's), so
 *  the panel never reads "no stream" while Traffic shows a subscriptions/listen. */
function ConnectionListen({ kinds }: { kinds: string[] }) {
  return (
    <Text size="xs" c="dimmed" data-testid="sub-connection-listen" data-open={kinds.length > 0 ? 'true' : 'false'}>
      {kinds.length > 0
        ? `The connection's own stream is open since connect (subscriptions/listen for ${kinds.join(', ')}): it keeps the Tools, Resources and Prompts list-changed marks, whatever this panel asks.`
        : 'The connection has no list-changed stream of its own open.'}
    </Text>
  );
}

function StreamDetails({ stream: s, relistens }: { stream: StreamView | null; relistens: number }) {
  if (!s) {
    return (
      <Text size="xs" c="dimmed" data-testid="sub-no-stream">
        This panel has no stream of its own yet: tick what to listen for.
      </Text>
    );
  }
  return (
    <Table withRowBorders={false} fz="xs" data-testid="sub-stream" data-number={s.number}>
      <Table.Tbody>
        <Row label="Status" testId="sub-status">
          <Badge color={STATUS_COLOR[s.status]} data-status={s.status}>
            {STATUS_LABEL[s.status]}
          </Badge>
        </Row>
        <Row label="Subscription id" testId="sub-id">
          <Text span ff="monospace" size="xs">
            {s.subscriptionId === null ? '—' : JSON.stringify(s.subscriptionId)}
          </Text>{' '}
          {s.idSource && (
            <Text span size="xs" c="dimmed" data-testid="sub-id-source" data-source={s.idSource}>
              ({s.idSource})
            </Text>
          )}
        </Row>
        <Row label="Requested filter" testId="sub-requested">
          {filterText(s.requested)}
        </Row>
        <Row label="Acknowledged filter" testId="sub-acknowledged">
          {s.acknowledged ? filterText(s.acknowledged) : 'not yet acknowledged'}
        </Row>
        <Row label="Not honoured" testId="sub-not-honoured">
          {s.notHonoured.length ? s.notHonoured.join(', ') : 'none'}
        </Row>
        <Row label="Close reason" testId="sub-close-reason">
          {s.closeReason ?? '—'}
        </Row>
        <Row label="Re-listen attempts" testId="sub-relistens">
          {relistens}
        </Row>
        <Row label="Notifications" testId="sub-notifications">
          {s.notifications}
        </Row>
      </Table.Tbody>
    </Table>
  );
}

/** Why a legacy server's panel offers no Subscribe (the TUI says the same). */
export const NO_SUBSCRIBE = 'The server does not declare resources.subscribe: it offers no subscriptions. Read a resource again to see changes.';

function NoSubscribe() {
  return (
    <Text size="sm" c="dimmed" data-testid="no-subscribe">
      {NO_SUBSCRIBE}
    </Text>
  );
}

function Legacy(p: { rows: UriRow[]; busy: boolean; onSubscribe: (uri: string, on: boolean) => void }) {
  return (
    <Stack gap={4}>
      {p.rows.map((r) => {
        const on = r.state?.subscribed ?? false;
        return (
          <Group key={r.uri} gap="xs" data-testid="sub-legacy-row" data-uri={r.uri} data-subscribed={on ? 'true' : 'false'}>
            <Text size="xs" ff="monospace">
              {r.uri}
            </Text>
            <Button size="compact-xs" variant="default" disabled={p.busy || on || !!r.state?.pending} onClick={() => p.onSubscribe(r.uri, true)} data-testid="sub-subscribe">
              Subscribe
            </Button>
            <Button size="compact-xs" variant="default" disabled={p.busy || !on || !!r.state?.pending} onClick={() => p.onSubscribe(r.uri, false)} data-testid="sub-unsubscribe">
              Unsubscribe
            </Button>
            {r.state?.pending && (
              <Text size="xs" c="dimmed">
                {r.state.pending}…
              </Text>
            )}
            {r.state?.error && (
              <Text size="xs" c="red" data-testid="sub-uri-error">
                {r.state.error}
              </Text>
            )}
          </Group>
        );
      })}
    </Stack>
  );
}

function Updated(p: { rows: UriRow[]; onReread: (uri: string) => void }) {
  const updated = p.rows.filter((r) => (r.state?.updates ?? 0) > 0);
  if (updated.length === 0) return null;
  return (
    <Stack gap={2}>
      <Text size="sm" fw={600}>
        Updates
      </Text>
      {updated.map((r) => (
        <Group key={r.uri} gap="xs" data-testid="sub-updated" data-uri={r.uri} data-updated={r.state?.updated ? 'true' : 'false'} data-count={r.state?.updates ?? 0}>
          <Text size="xs" ff="monospace">
            {r.uri}
          </Text>
          <Text size="xs" c="dimmed">
            {r.state?.updates} update(s){r.state?.lastUpdatedUs ? `, last at ${timeOfDay(r.state.lastUpdatedUs)}` : ''}
          </Text>
          {r.state?.updated && (
            <>
              <Badge color="yellow" variant="dot">
                updated
              </Badge>
              <Button size="compact-xs" onClick={() => p.onReread(r.uri)} data-testid="sub-reread">
                Re-read
              </Button>
            </>
          )}
        </Group>
      ))}
    </Stack>
  );
}

/** What the last re-read returned (the screen's own viewer keeps what was selected there). */
function Reread({ uri, outcome }: { uri: string; outcome: CallOutcome }) {
  const contents = outcome.ok ? ((((outcome.result ?? {}) as JsonObject).contents ?? []) as JsonObject[]) : [];
  return (
    <Stack gap={2} data-testid="sub-reread-result" data-uri={uri} data-ok={outcome.ok ? 'true' : 'false'}>
      <Text size="xs" c="dimmed">
        Re-read {uri}:
      </Text>
      {outcome.ok ? (
        contents.map((c, i) => <ResourceContent key={i} item={c} />)
      ) : (
        <Text size="xs" c="red">
          {outcome.error.message}
        </Text>
      )}
    </Stack>
  );
}

function History({ view }: { view: SubscriptionsView }) {
  const rows = [...view.history].reverse();
  return (
    <Stack gap={2}>
      <Group gap="xs">
        <Text size="sm" fw={600}>
          History
        </Text>
        <Text size="xs" c="dimmed" data-testid="sub-rejected" data-count={view.rejected}>
          {view.rejected} rejected
          {view.historyOmitted > 0 ? ` · ${view.historyOmitted} older transitions not kept` : ''}
          {view.urisOmitted > 0 ? ` · ${view.urisOmitted} updates of untracked URIs` : ''}
        </Text>
      </Group>
      <ScrollArea.Autosize mah={240} type="auto">
        <Table fz="xs" striped data-testid="sub-history">
          <Table.Tbody>
            {rows.map((t, i) => (
              <Table.Tr key={`${t.timeUs}-${i}`} data-testid="sub-transition" data-kind={t.kind}>
                <Table.Td w={100} ff="monospace">
                  {timeOfDay(t.timeUs)}
                </Table.Td>
                <Table.Td w={200}>
                  <Badge size="xs" color={t.kind === 'rejected' || t.kind === 'error' ? 'red' : t.kind === 'connectionLost' ? 'orange' : 'gray'}>
                    {KIND_LABEL[t.kind]}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {t.message}
                  {t.subscriptionId !== null && <Text span c="dimmed">{` · subscription ${JSON.stringify(t.subscriptionId)}`}</Text>}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea.Autosize>
    </Stack>
  );
}
