// The badges' logic: the backend's lint read defensively, grouped by tool position, summarised;
// a finding's server-controlled text rendered as text.
import { describe, expect, it } from 'vitest';
import { createElement } from 'react';
import type { ToolFinding } from '../../../generated/events';
import { render } from '../../../test/render';
import { QualityBadge, QualityList, QualityTotal } from './QualityBadge';
import { findingsByIndex, lintOf, summarize, totalLabel } from './quality';

const f = (index: number, severity: 'error' | 'warning', code = 'x', message = 'm'): ToolFinding => ({
  tool: `t${index}`,
  index,
  severity,
  code,
  message,
  pointer: '/name',
});

describe('lintOf', () => {
  it('keeps well-formed findings and recounts', () => {
    const lint = lintOf({
      findings: [f(0, 'error'), { index: 'one', severity: 'error' }, { index: 1, severity: 'fatal' }, f(2, 'warning'), null],
      errors: 99,
      warnings: 99,
      incomplete: 'bound',
    });
    expect(lint?.findings.map((x) => x.index)).toEqual([0, 2]);
    expect([lint?.errors, lint?.warnings, lint?.incomplete]).toEqual([1, 1, 'bound']);
  });
  it('is null without findings', () => {
    expect(lintOf(undefined)).toBeNull();
    expect(lintOf({ findings: 'no' })).toBeNull();
  });
});

describe('summaries', () => {
  it('groups by position: two tools of one name stay apart', () => {
    const by = findingsByIndex({ findings: [f(3, 'error'), f(1, 'warning'), f(3, 'warning')], errors: 1, warnings: 2 });
    expect(by.get(3)?.length).toBe(2);
    expect(by.get(1)?.length).toBe(1);
    expect(by.get(0)).toBeUndefined();
  });
  it('red for any error, amber for warnings only, nothing when clean', () => {
    expect(summarize([f(0, 'warning'), f(0, 'error')])).toMatchObject({ color: 'red', label: '1 error, 1 warning' });
    expect(summarize([f(0, 'warning'), f(0, 'warning')])).toMatchObject({ color: 'orange', label: '2 warnings' });
    expect(summarize([])).toMatchObject({ color: null, label: '' });
  });
  it('totals across tools', () => {
    expect(totalLabel({ findings: [f(0, 'error'), f(0, 'warning'), f(4, 'warning')], errors: 1, warnings: 2 })).toBe('1 error, 2 warnings in 2 tools');
    expect(totalLabel({ findings: [], errors: 0, warnings: 0 })).toBe('no findings');
  });
});

describe('rendering', () => {
  it('a badge counts and says its severity; a clean tool has none', () => {
    const html = render(createElement(QualityBadge, { tool: 'a', findings: [f(0, 'warning'), f(0, 'error')] }));
    expect(html).toContain('data-testid="quality-badge"');
    expect(html).toContain('data-severity="error"');
    expect(html).toContain('data-count="2"');
    expect(html).toContain('tabindex="0"');
    expect(render(createElement(QualityBadge, { tool: 'a', findings: [] }))).not.toContain('quality-badge');
  });
  it('server text in a finding is text, never markup', () => {
    const evil = '$ref "<img src=x onerror=alert(1)>" points outside';
    const html = render(createElement(QualityList, { findings: [f(0, 'warning', 'remote-ref', evil)] }));
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
  it('lists at most twelve and counts the rest', () => {
    const many = Array.from({ length: 15 }, () => f(0, 'warning'));
    const html = render(createElement(QualityList, { findings: many }));
    expect(html.match(/data-testid="quality-finding"/g)?.length).toBe(12);
    expect(html).toContain('and 3 more');
  });
  it('the header total', () => {
    const html = render(createElement(QualityTotal, { lint: { findings: [f(0, 'error')], errors: 1, warnings: 0 } }));
    expect(html).toContain('Quality: 1 error in 1 tool');
    expect(render(createElement(QualityTotal, { lint: null }))).not.toContain('quality-total');
  });
});
