import { describe, expect, it } from 'vitest';
import { addProblems, nameProblem, tidyRoot, uriProblem } from './roots';

describe('root URI validation', () => {
  it('accepts file:// URIs', () => {
    expect(uriProblem('file:///home/me/project')).toBeNull();
    expect(uriProblem('file://host/share')).toBeNull();
    expect(uriProblem('  file:///tmp  ')).toBeNull();
  });

  it('refuses everything else and says why', () => {
    expect(uriProblem('https://example.com/x')).toContain('scheme "https"');
    expect(uriProblem('/home/me')).toContain('write it as "file:///home/me"');
    expect(uriProblem('')).toContain('needs a URI');
    expect(uriProblem('project')).toContain('not a URI');
    expect(uriProblem('file:///a?x=1')).toContain('query or fragment');
    expect(uriProblem('file:///a#top')).toContain('query or fragment');
    expect(uriProblem('FILE:///a')).toContain('must start with "file://"');
    expect(uriProblem('file:///' + 'a'.repeat(5000))).toContain('longer than');
  });

  it('checks a new row against the list and its name', () => {
    const roots = [{ uri: 'file:///a', name: 'A' }];
    expect(addProblems(roots, { uri: 'file:///b', name: 'B' })).toEqual({});
    expect(addProblems(roots, { uri: 'file:///a' }).uri).toContain('listed already');
    expect(addProblems(roots, { uri: 'http://x', name: 'a\nb' })).toEqual({
      uri: expect.stringContaining('scheme "http"'),
      name: expect.stringContaining('no control characters'),
    });
    const full = Array.from({ length: 100 }, (_, i) => ({ uri: `file:///r${i}` }));
    expect(addProblems(full, { uri: 'file:///more' }).uri).toContain('at most 100');
    expect(nameProblem('x'.repeat(201))).toContain('at most 200');
    expect(nameProblem('')).toBeNull();
  });

  it('keeps rows trimmed, an empty name left out', () => {
    expect(tidyRoot({ uri: ' file:///a ', name: '  ' })).toEqual({ uri: 'file:///a' });
    expect(tidyRoot({ uri: 'file:///a', name: ' Project ' })).toEqual({ uri: 'file:///a', name: 'Project' });
  });
});
