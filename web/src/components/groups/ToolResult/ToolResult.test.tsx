import { describe, expect, it } from 'vitest';
import { render } from '../../../test/render';
import { ToolResult } from './ToolResult';

const none = () => {};

describe('ToolResult', () => {
  it('a tool error links its troubleshooting guide, as the error card does (issue 24)', () => {
    const html = render(
      <ToolResult outcome={{ kind: 'result', result: { isError: true, content: [{ type: 'text', text: 'boom' }] }, durationMs: 5 }} outputCheck={null} onClear={none} />,
    );
    expect(html).toContain('data-testid="is-error"');
    expect(html).toContain('data-code="tool_error"');
    expect(html).toContain('href="/troubleshooting/tool_error"');
  });
  it('a JSON-RPC error links the guide of its code', () => {
    const html = render(<ToolResult outcome={{ kind: 'error', error: { code: 'rpc_error', message: 'nope', rpcCode: -32602 }, durationMs: 5 }} outputCheck={null} onClear={none} />);
    expect(html).toContain('data-code="rpc_error"');
  });
  it('a success has no guide', () => {
    const html = render(<ToolResult outcome={{ kind: 'result', result: { content: [] }, durationMs: 5 }} outputCheck={null} onClear={none} />);
    expect(html).not.toContain('troubleshooting-link');
  });
});
