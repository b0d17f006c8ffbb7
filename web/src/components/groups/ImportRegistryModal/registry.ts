// The import screen's words about a server.json that do not need the backend: which lines of the
// editor to mark, the line a syntax error names, the transport a choice uses.
import type { RegistryCheck, RegistryPackage, RegistryRemote } from '../../../utils/types';

const RANK: Record<string, number> = { error: 3, warning: 2, info: 1, ok: 0 };

/** The lines to mark in the editor, each with its worst finding's level (ok and info lines are
 *  not marked: nothing to fix there). */
export function lineMarks(checks: RegistryCheck[]): Map<number, string> {
  const marks = new Map<number, string>();
  for (const c of checks) {
    if (!c.line || (RANK[c.level] ?? 0) < RANK.warning) continue;
    const had = marks.get(c.line);
    if (!had || RANK[c.level] > RANK[had]) marks.set(c.line, c.level);
  }
  return marks;
}

/** The line a JSON syntax error names (serde_json's "… at line 5 column 3"), if it does. */
export function syntaxLine(message: string): number | null {
  const m = /at line (\d+) column \d+/.exec(message);
  return m ? Number(m[1]) : null;
}

/** The transport the chosen package or remote uses (a package without one is stdio). */
export function transportOf(pkg: RegistryPackage | undefined, remote: RegistryRemote | undefined): string | null {
  if (remote) return remote.type ?? null;
  if (!pkg) return null;
  const t = pkg.transport as { type?: unknown } | null | undefined;
  return typeof t?.type === 'string' ? t.type : 'stdio';
}

/** Where line `line` (1-based) of `text` starts and ends (for selecting it). */
export function lineRange(text: string, line: number): [number, number] {
  let start = 0;
  for (let i = 1; i < line; i++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return [text.length, text.length];
    start = nl + 1;
  }
  const end = text.indexOf('\n', start);
  return [start, end < 0 ? text.length : end];
}
