import { describe, expect, it } from 'vitest';
import { addProblems, nameProblem, rootUriOf, tidyRoot, uriProblem } from './roots';

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

describe('a typed path becomes the file:// URI a root needs', () => {
  it('takes an absolute path, ~ and a URI, encoding what a URI cannot hold', () => {
    expect(rootUriOf('/home/me/My Project', null)).toEqual({ uri: 'file:///home/me/My%20Project' });
    expect(rootUriOf('~/notes', '/home/me/')).toEqual({ uri: 'file:///home/me/notes' });
    expect(rootUriOf('~', '/home/me')).toEqual({ uri: 'file:///home/me' });
    expect(rootUriOf('C:\\Users\\me', null)).toEqual({ uri: 'file:///C:/Users/me' });
    expect(rootUriOf(' file:///etc/myapp ', null)).toEqual({ uri: 'file:///etc/myapp' });
  });

  it('says what to type for a relative path, or ~ when the home directory is unknown', () => {
    expect(rootUriOf('src/app', '/home/me')).toEqual({ error: '"src/app" is a relative path; type it from / (or ~/), or a file:// URI' });
    expect(rootUriOf('~/x', null)).toHaveProperty('error');
    expect(rootUriOf('', null)).toHaveProperty('error');
  });
});
