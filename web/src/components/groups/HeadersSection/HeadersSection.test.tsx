import { describe, expect, it } from 'vitest';
import { render } from '../../../test/render';
import type { HeaderVerdicts } from '../../../utils/types';
import { HeadersSection } from './HeadersSection';

const verdicts: HeaderVerdicts = {
  request: [['Mcp-Method', 'tools/call'], ['Mcp-Name', 'route-query']],
  status: 200,
  mirrored: [],
  firstDisagreement: 'mcp-name disagrees with the body',
  rows: [{ header: 'Mcp-Name', expected: 'route-query', sent: 'other', verdict: 'mismatch' }],
  failed: false,
};

describe('HeadersSection', () => {
  it('is collapsed and names the first disagreement', () => {
    const html = render(<HeadersSection headers={verdicts} />);
    expect(html).toContain('data-open="false"');
    expect(html).toContain('data-tone="bad"');
    expect(html).toContain('mcp-name disagrees with the body');
  });
  it('is absent without a matched exchange', () => {
    expect(render(<HeadersSection headers={null} />)).not.toContain('data-testid="http-headers"');
  });
  it('flags a failed exchange', () => {
    expect(render(<HeadersSection headers={{ ...verdicts, status: 503 }} />)).toContain('data-failed="true"');
  });
});
