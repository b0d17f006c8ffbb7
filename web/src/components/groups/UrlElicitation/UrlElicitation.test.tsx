import { describe, expect, it } from 'vitest';
import { render } from '../../../test/render';
import { UrlElicitation } from './UrlElicitation';

const noop = () => undefined;

describe('UrlElicitation', () => {
  it('opens an https URL in a new tab that cannot reach back into this page', () => {
    const html = render(<UrlElicitation url="https://auth.example.com/authorize?x=1" elicitationId="e-1" onAnswer={noop} busy={false} />);
    expect(html).toContain('href="https://auth.example.com/authorize?x=1"');
    expect(html).toContain('target="_blank"');
    expect(html).toContain('rel="noopener noreferrer"');
    expect(html).toMatch(/data-testid="elicit-url-domain"[^>]*>auth\.example\.com</);
    expect(html).toContain('e-1');
  });
  it('never makes a link of a script URL, and shows HTML as text', () => {
    const url = 'javascript:alert(1)//<img src=x onerror=alert(2)>';
    const html = render(<UrlElicitation url={url} elicitationId={null} onAnswer={noop} busy={false} />);
    expect(html).not.toContain('href=');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(html).toContain('data-testid="elicit-url-unsafe"');
    expect(html).toContain('data-openable="false"');
  });
});
