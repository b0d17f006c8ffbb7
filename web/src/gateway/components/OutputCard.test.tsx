import { describe, expect, it } from 'vitest';
import { render } from '../../test/render';
import type { Exchange } from '../client';
import { OutputCard } from './OutputCard';

const exchange = (result: unknown, status = 200): Exchange => ({
  method: 'tools/call',
  request: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 't', arguments: {} } },
  requestHeaders: [['Mcp-Method', 'tools/call']],
  status,
  response: { jsonrpc: '2.0', id: 3, result: result as never },
  elapsedMs: 12.4,
});

describe('OutputCard', () => {
  it('shows input_required as Input required, with the raw response and no continuation', () => {
    const html = render(
      <OutputCard output={{ what: 'tool', name: 't', outcome: 'input-required', exchange: exchange({ resultType: 'input_required', inputRequests: { a: {} } }) }} onClear={() => undefined} />,
    );
    expect(html).toContain('data-outcome="input-required"');
    expect(html).toContain('Input required');
    expect(html).toContain('no continuation');
    expect(html).toContain('inputRequests');
    expect(html).toContain('HTTP 200');
    expect(html).toContain('12 ms');
  });

  it("draws a gateway's HTML as text", () => {
    const html = render(
      <OutputCard output={{ what: 'tool', name: 't', outcome: 'ok', exchange: exchange({ content: [{ type: 'text', text: '<img src=x onerror=alert(1)>' }] }) }} onClear={() => undefined} />,
    );
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it("names a relay refusal as the relay's rule", () => {
    const html = render(
      <OutputCard
        output={{ what: 'tool', name: 't', outcome: 'error', problem: { kind: 'refused', rule: 'method-allowlist', message: 'method is not relayed' } }}
        onClear={() => undefined}
      />,
    );
    expect(html).toContain("Refused by mcpscope&#x27;s relay, rule method-allowlist (not the gateway&#x27;s answer)");
  });

  it('a prompt: messages, Copy and the estimate', () => {
    const ex = exchange({ messages: [{ role: 'user', content: { type: 'text', text: 'Please greet Ada warmly' } }] });
    const html = render(<OutputCard output={{ what: 'prompt', name: 'p', outcome: 'ok', exchange: ex }} onClear={() => undefined} />);
    expect(html).toContain('Please greet Ada warmly');
    expect(html).toContain('data-tokens="8"');
    expect(html).toContain('an estimate at four characters per token');
  });
});
