// Per-tool quality badge (000's "Quality badges"): the count of a tool's definition findings,
// red when any is a spec error, amber for warnings only, the list on hover and on keyboard
// focus. Findings quote server text: it is rendered as React text only, never as HTML.
import { Badge, Stack, Text, Tooltip } from '@mantine/core';
import type { ToolFinding, ToolLint } from '../../../generated/events';
import { summarize, totalLabel } from './quality';

/** Most findings drawn in one hover list; the rest are counted. */
const LISTED = 12;

export interface QualityListProps {
  findings: readonly ToolFinding[];
}

/** The findings of one tool, as text: severity, code, message, pointer. */
export function QualityList({ findings }: QualityListProps) {
  const shown = findings.slice(0, LISTED);
  return (
    <Stack gap={6} data-testid="quality-list">
      {shown.map((f, i) => (
        <div key={i} data-testid="quality-finding" data-severity={f.severity} data-code={f.code}>
          <Text size="xs" fw={700} c={f.severity === 'error' ? 'red.3' : 'orange.3'}>
            {f.severity === 'error' ? 'Error' : 'Warning'} · {f.code}
          </Text>
          <Text size="xs" style={{ wordBreak: 'break-word' }}>
            {f.message}
          </Text>
          {f.pointer && (
            <Text size="xs" ff="monospace" c="gray.5" style={{ wordBreak: 'break-all' }}>
              {f.pointer}
            </Text>
          )}
        </div>
      ))}
      {findings.length > LISTED && (
        <Text size="xs" c="gray.4" data-testid="quality-more">
          and {findings.length - LISTED} more
        </Text>
      )}
    </Stack>
  );
}

export interface QualityBadgeProps {
  tool: string;
  findings: readonly ToolFinding[];
}

/** Nothing for a clean tool; otherwise a focusable count with the list in a tooltip. */
export function QualityBadge({ tool, findings }: QualityBadgeProps) {
  const s = summarize(findings);
  if (!s.color) return null;
  return (
    <Tooltip
      label={<QualityList findings={findings} />}
      events={{ hover: true, focus: true, touch: true }}
      multiline
      w={380}
      withArrow
      position="right"
      withinPortal
    >
      <Badge
        component="span"
        tabIndex={0}
        color={s.color}
        variant="filled"
        size="sm"
        circle={findings.length < 10}
        aria-label={`${tool}: ${s.label}`}
        data-testid="quality-badge"
        data-severity={s.errors > 0 ? 'error' : 'warning'}
        data-count={findings.length}
        style={{ flexShrink: 0, cursor: 'help' }}
      >
        {findings.length}
      </Badge>
    </Tooltip>
  );
}

export interface QualityTotalProps {
  lint: ToolLint | null | undefined;
}

/** The server's total, for the sidebar header (nothing before the first list). */
export function QualityTotal({ lint }: QualityTotalProps) {
  if (!lint) return null;
  const s = summarize(lint.findings);
  return (
    <Text
      size="xs"
      c={s.errors > 0 ? 'red' : s.warnings > 0 ? 'orange' : 'dimmed'}
      data-testid="quality-total"
      data-errors={s.errors}
      data-warnings={s.warnings}
      title={lint.incomplete ? `Not every tool was checked: ${lint.incomplete}` : undefined}
    >
      Quality: {totalLabel(lint)}
      {lint.incomplete ? ' (incomplete)' : ''}
    </Text>
  );
}
