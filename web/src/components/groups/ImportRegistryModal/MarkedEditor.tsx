// A plain-text editor with line numbers whose lines can be marked (a finding's line tinted in the
// gutter and behind the text) and selected from outside (clicking a finding). A textarea, not a
// code editor: lines do not wrap, so line N of the text is row N on screen, and the gutter and
// the tint follow the textarea's scroll.
import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from 'react';
import { lineRange } from './registry';

/** Pixels per line: the gutter, the tint and the textarea share it. */
const LINE = 18;
const PAD = 6;

const TINT: Record<string, string> = {
  error: 'var(--mantine-color-red-light)',
  warning: 'var(--mantine-color-yellow-light)',
};

export interface MarkedEditorHandle {
  /** Select line `line` (1-based), scroll it into view and focus the editor. */
  selectLine: (line: number) => void;
}

export interface MarkedEditorProps {
  value: string;
  onChange: (text: string) => void;
  /** Lines to mark, by their level (`error`, `warning`). */
  marks: Map<number, string>;
  rows?: number;
  /** A line to scroll into view (not selected, no focus) whenever it changes: the first
   *  problem of new results, so a paste that left the view at its end shows it. */
  reveal?: number | null;
  testId: string;
  label: string;
}

const mono = { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12, lineHeight: `${LINE}px` } as const;

export const MarkedEditor = forwardRef<MarkedEditorHandle, MarkedEditorProps>(function MarkedEditor({ value, onChange, marks, rows = 14, reveal, testId, label }, ref) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [scroll, setScroll] = useState(0);
  const count = value.split('\n').length;
  useEffect(() => {
    const ta = area.current;
    if (!ta || !reveal) return;
    ta.scrollTop = Math.max(0, (reveal - 1) * LINE - ta.clientHeight / 2);
    setScroll(ta.scrollTop);
  }, [reveal]);
  useImperativeHandle(ref, () => ({
    selectLine(line) {
      const ta = area.current;
      if (!ta) return;
      const [start, end] = lineRange(ta.value, line);
      ta.focus();
      ta.setSelectionRange(start, end);
      ta.scrollTop = Math.max(0, (line - 1) * LINE - ta.clientHeight / 2);
      setScroll(ta.scrollTop);
    },
  }));
  return (
    <div style={{ display: 'flex', height: rows * LINE + 2 * PAD, border: '1px solid var(--mantine-color-default-border)', borderRadius: 4, overflow: 'hidden' }}>
      <div aria-hidden style={{ ...mono, overflow: 'hidden', minWidth: '3.2em', textAlign: 'right', background: 'var(--mantine-color-default-hover)', color: 'var(--mantine-color-dimmed)', userSelect: 'none' }}>
        <div style={{ transform: `translateY(${PAD - scroll}px)` }}>
          {Array.from({ length: count }, (_, i) => {
            const level = marks.get(i + 1);
            return (
              <div key={i} style={{ padding: '0 6px', background: level ? TINT[level] : undefined, fontWeight: level ? 700 : undefined }} data-testid={level ? 'editor-line-mark' : undefined} data-line={i + 1} data-level={level}>
                {i + 1}
              </div>
            );
          })}
        </div>
      </div>
      <div style={{ position: 'relative', flex: 1, minWidth: 0 }}>
        <div aria-hidden style={{ position: 'absolute', inset: 0, overflow: 'hidden', pointerEvents: 'none' }}>
          {[...marks].map(([line, level]) => (
            <div key={line} style={{ position: 'absolute', left: 0, right: 0, top: PAD + (line - 1) * LINE - scroll, height: LINE, background: TINT[level] }} />
          ))}
        </div>
        <textarea
          ref={area}
          aria-label={label}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
          onScroll={(e) => setScroll(e.currentTarget.scrollTop)}
          wrap="off"
          spellCheck={false}
          data-testid={testId}
          style={{ ...mono, position: 'relative', width: '100%', height: '100%', resize: 'none', border: 0, outline: 0, padding: `${PAD}px 8px`, whiteSpace: 'pre', overflow: 'auto', background: 'transparent', color: 'inherit', boxSizing: 'border-box' }}
        />
      </div>
    </div>
  );
});
