import { describe, expect, it } from 'vitest';
import type { SubscriptionsView } from '../../../generated/events';
import { render } from '../../../test/render';
import { SubscriptionsPanel } from './SubscriptionsPanel';
import { declaresSubscribe, emptyFilter } from './subscriptions';

const legacy: SubscriptionsView = {
  server: 'f',
  era: 'legacy',
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
};
const resources = [{ uri: 'testenv://readme', name: 'readme' }];
const panel = (canSubscribe: boolean) =>
  render(<SubscriptionsPanel server="f" view={legacy} resources={resources} onRead={async () => ({ ok: true, historyId: 1, result: {} })} canSubscribe={canSubscribe} />);

describe('Subscribe is offered only where the server declares resources.subscribe', () => {
  it('reads the capability', () => {
    expect(declaresSubscribe({ resources: { subscribe: true, listChanged: true } })).toBe(true);
    // FastMCP: resources without subscribe; unknown capabilities (not connected) offer nothing.
    expect(declaresSubscribe({ resources: { subscribe: false, listChanged: false } })).toBe(false);
    expect(declaresSubscribe({ resources: {} })).toBe(false);
    expect(declaresSubscribe({ tools: {} })).toBe(false);
    expect(declaresSubscribe(null)).toBe(false);
  });
  it('the legacy panel says why instead of a Subscribe button', () => {
    const without = panel(false);
    expect(without).toContain('data-testid="no-subscribe"');
    expect(without).not.toContain('data-testid="sub-subscribe"');
    expect(panel(true)).toContain('data-testid="sub-subscribe"');
  });
});
