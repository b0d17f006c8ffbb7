import { describe, expect, it } from 'vitest';
import type { SubscriptionsView } from '../../../generated/events';
import { STATUS_LABEL, emptyFilter, filterText, isOpen, newer, subscribedUris, uriRows, withKind, withUri } from './subscriptions';

const view = (over: Partial<SubscriptionsView>): SubscriptionsView => ({
  server: 'demo',
  era: 'modern',
  version: 1,
  desired: emptyFilter(),
  stream: null,
  connectionListen: [],
  relistens: 0,
  uris: [],
  urisOmitted: 0,
  history: [],
  historyOmitted: 0,
  rejected: 0,
  updates: 0,
  ...over,
});

describe('subscriptions panel logic', () => {
  it('names the statuses exactly as 000 does, graceful and remote closes apart', () => {
    expect(STATUS_LABEL.closedByServer).toBe('Closed by server (graceful)');
    expect(STATUS_LABEL.connectionLost).toBe('Connection lost (remote close)');
    expect(STATUS_LABEL.cancelledLocally).toBe('Cancelled locally');
    expect(isOpen('opening') && isOpen('active')).toBe(true);
    expect(isOpen('closedByServer') || isOpen('connectionLost') || isOpen(undefined)).toBe(false);
  });

  it('edits the desired filter one checkbox at a time', () => {
    let f = withKind(emptyFilter(), 'toolsListChanged', true);
    f = withUri(f, 'demo://counter', true);
    f = withUri(f, 'demo://readme', true);
    expect(f.resourceSubscriptions).toEqual(['demo://counter', 'demo://readme']);
    f = withUri(f, 'demo://counter', false);
    expect(f.resourceSubscriptions).toEqual(['demo://readme']);
    expect(filterText(f)).toBe('tools/list_changed, resources/updated demo://readme');
    expect(filterText(emptyFilter())).toBe('nothing');
    expect(filterText(null)).toBe('—');
  });

  it('keeps the newer of an event and a REST answer', () => {
    const a = view({ version: 3 });
    const b = view({ version: 2 });
    expect(newer(a, b)).toBe(a);
    expect(newer(b, a)).toBe(a);
    expect(newer(null, b)).toBe(b);
    // Another server's view replaces the old one (the panel moved).
    const other = view({ server: 'x', version: 1 });
    expect(newer(a, other)).toBe(other);
  });

  it('lists the resources, then tracked URIs the list lacks, once each', () => {
    const v = view({
      desired: { ...emptyFilter(), resourceSubscriptions: ['demo://counter', 'file:///watched'] },
      uris: [{ uri: 'demo://counter', subscribed: true, pending: null, error: null, updates: 2, updated: true, lastUpdatedUs: 1 }],
    });
    const rows = uriRows([{ uri: 'demo://readme', name: 'readme' }, { uri: 'demo://counter', title: 'Counter' }, { uri: 'demo://readme' }, { name: 'no uri' }], v);
    expect(rows.map((r) => r.uri)).toEqual(['demo://readme', 'demo://counter', 'file:///watched']);
    expect(rows[1]).toMatchObject({ name: 'Counter', watched: true });
    expect(rows[1].state?.updates).toBe(2);
    expect(rows[0].watched).toBe(false);
  });
});

describe('subscribedUris', () => {
  it('is what the desired filter watches on 2026-07-28 and what the server accepted on 2025-11-25', () => {
    const desired = withUri(emptyFilter(), 'demo://counter', true);
    expect(subscribedUris(view({ desired }))).toEqual(['demo://counter']);
    const row = (uri: string, subscribed: boolean) => ({ uri, subscribed }) as SubscriptionsView['uris'][number];
    expect(subscribedUris(view({ era: 'legacy', uris: [row('a', true), row('b', false)] }))).toEqual(['a']);
    expect(subscribedUris(null)).toEqual([]);
  });
});
