import { describe, expect, it } from 'vitest';
import { lineMarks, lineRange, syntaxLine, transportOf } from './registry';

describe('the server.json import words', () => {
  it('marks each line with its worst finding, leaving ok and info lines alone', () => {
    const marks = lineMarks([
      { level: 'warning', message: 'w', line: 3 },
      { level: 'error', message: 'e', line: 3 },
      { level: 'info', message: 'i', line: 4 },
      { level: 'warning', message: 'w', line: 7 },
      { level: 'error', message: 'no line' },
    ]);
    expect([...marks]).toEqual([
      [3, 'error'],
      [7, 'warning'],
    ]);
  });

  it('reads the line of a syntax error', () => {
    expect(syntaxLine('the pasted server.json is not valid JSON (expected `,` or `}` at line 5 column 3); paste the whole file')).toBe(5);
    expect(syntaxLine('nothing here')).toBeNull();
  });

  it('names the transport of a choice, stdio when a package names none', () => {
    expect(transportOf({ index: 0, transport: { type: 'streamable-http' } }, undefined)).toBe('streamable-http');
    expect(transportOf({ index: 0 }, undefined)).toBe('stdio');
    expect(transportOf(undefined, { index: 0, type: 'sse' })).toBe('sse');
    expect(transportOf(undefined, undefined)).toBeNull();
  });

  it('finds a line to select', () => {
    expect(lineRange('a\nbc\nd', 2)).toEqual([2, 4]);
    expect(lineRange('a\nbc\nd', 3)).toEqual([5, 6]);
    expect(lineRange('a', 9)).toEqual([1, 1]);
  });
});
