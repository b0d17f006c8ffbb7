import { describe, expect, it } from 'vitest';
import { render } from '../../../test/render';
import { eraAdviceForWeb, splitHint } from '../../../utils/format';
import { InlineError } from './InlineError';

// What the engine answers when a 2026-07-28 connect meets the TypeScript SDK v1 over HTTP
// (crates/mcpscope-server/tests/peers.rs checks the backend's side).
const hint = 'a server that speaks only 2025-11-25 answers a 2026-07-28 request so: try --protocol-era legacy or auto';
const message = `server/discover answered HTTP 400 at http://127.0.0.1:3000/mcp: {"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}; ${hint}`;

describe('InlineError', () => {
  it('shows the advice on its own line, in the web UI words, not behind "Show more"', () => {
    const html = render(<InlineError message={message} code="unreachable" hint={hint} />);
    expect(html).toContain('data-testid="inline-error-hint"');
    expect(html).toContain('choose Protocol 2025-11-25 or Auto');
    expect(html).not.toContain('--protocol-era');
  });
  it('has no advice line without a hint', () => {
    expect(render(<InlineError message="refused" code="unreachable" />)).not.toContain('inline-error-hint');
  });
});

describe('splitHint', () => {
  it('takes the advice off the end of the message', () => {
    const { message: head, hint: advice } = splitHint(message, hint);
    expect(head.endsWith('provided"},"id":null}')).toBe(true);
    expect(advice).toContain('choose Protocol 2025-11-25 or Auto');
  });
  it('translates the flag in a message with no hint field (an older backend, a stdio -32601)', () => {
    expect(eraAdviceForWeb('it is probably a legacy server; try --protocol-era legacy or auto')).toBe(
      'it is probably a legacy server; choose Protocol 2025-11-25 or Auto (top bar, or Edit on the card)',
    );
  });
});
