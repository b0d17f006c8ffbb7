import { describe, expect, it } from 'vitest';
import { render } from '../../../test/render';
import type { SendResult } from '../../../utils/experimental';
import { SendResponse } from './SendResponse';

const base: SendResult = {
  historyId: 7, requestId: 'r', raw: false, era: 'legacy', kind: 'request', id: 3, durationMs: 12.34,
  outcome: 'result', summary: 'answered with a result in 12.34 ms',
  sent: { text: '{"jsonrpc":"2.0","id":3,"method":"tools/call"}', size: 45, truncated: false },
};

describe('SendResponse', () => {
  it('draws HTML from the server as text, never as markup', () => {
    const html = render(<SendResponse result={{ ...base, response: { jsonrpc: '2.0', id: 3, result: { text: '<img src=x onerror=alert(1)><script>alert(2)</script>' } } }} />);
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>');
    expect(html).toContain('data-outcome="result"');
    expect(html).toContain('12.3 ms');
  });

  it('names a JSON-RPC error by its code', () => {
    const html = render(
      <SendResponse
        result={{ ...base, outcome: 'error', summary: 'answered with JSON-RPC error -32601', rpcError: { code: -32601, message: 'method not found: x', name: 'Method not found' }, response: { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'method not found: x' } } }}
      />,
    );
    expect(html).toContain('JSON-RPC error -32601 Method not found: method not found: x');
    expect(html).toContain('data-code="-32601"');
  });

  it('shows a cut answer as text with its whole size and where the rest is', () => {
    const html = render(<SendResponse result={{ ...base, response: null, truncated: true, responseText: '{"jsonrpc":"2.0","result":"0123', responseSize: 10_000_123 }} />);
    expect(html).toContain('data-testid="exp-response-cut"');
    expect(html).toContain('/api/history/7/result');
  });

  it('says that nothing came back', () => {
    const html = render(<SendResponse result={{ ...base, outcome: 'noReply', id: null, waitedMs: 700, summary: 'nothing came back within 700 ms' }} />);
    expect(html).toContain('data-outcome="noReply"');
    expect(html).toContain('nothing came back within 700 ms');
  });
});
