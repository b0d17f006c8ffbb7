import { describe, expect, it } from 'vitest';
import { render } from '../../../test/render';
import { TrafficScreen } from './TrafficScreen';

describe('TrafficScreen', () => {
  it("a warning banner can be dismissed (issue 24: after a cancel it could not be closed)", () => {
    const html = render(
      <TrafficScreen
        frames={{ items: [], hasOlder: false, hasNewer: false }}
        warnings={[{ server: 's', message: 'progress for unknown token 7', frameSeq: 3 }]}
        bodyUrl={() => ''}
        onOlder={async () => {}}
        onNewer={async () => {}}
      />,
    );
    expect(html).toContain('data-testid="traffic-warning"');
    expect(html).toContain('aria-label="Dismiss warning"');
  });
});
