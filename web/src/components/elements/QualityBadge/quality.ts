// Tool quality findings (the backend's `lint` beside a tools/list answer, computed by
// mcpscope_proto::tool_lint): read defensively, grouped by tool position, summarised.

import type { ToolFinding, ToolLint } from '../../../generated/events';

/** The `lint` of a list answer, or null when there is none or it is not the expected shape
 *  (entries of the wrong shape are left out, never shown half-read). */
export function lintOf(raw: unknown): ToolLint | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  if (!Array.isArray(r.findings)) return null;
  const findings: ToolFinding[] = [];
  for (const f of r.findings) {
    if (!f || typeof f !== 'object') continue;
    const x = f as Record<string, unknown>;
    if (typeof x.index !== 'number' || (x.severity !== 'error' && x.severity !== 'warning')) continue;
    findings.push({
      tool: String(x.tool ?? ''),
      index: x.index,
      severity: x.severity,
      code: String(x.code ?? ''),
      message: String(x.message ?? ''),
      pointer: String(x.pointer ?? ''),
    });
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  const lint: ToolLint = { findings, errors, warnings: findings.length - errors };
  if (typeof r.incomplete === 'string') lint.incomplete = r.incomplete;
  return lint;
}

/** Findings by the position of their tool in the list. */
export function findingsByIndex(lint: ToolLint | null | undefined): Map<number, ToolFinding[]> {
  const out = new Map<number, ToolFinding[]>();
  for (const f of lint?.findings ?? []) {
    const list = out.get(f.index);
    if (list) list.push(f);
    else out.set(f.index, [f]);
  }
  return out;
}

export interface QualitySummary {
  errors: number;
  warnings: number;
  /** red when any error, amber (Mantine orange) for warnings only, null when clean. */
  color: 'red' | 'orange' | null;
  /** "1 error, 2 warnings" (empty categories left out). */
  label: string;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function summarize(findings: readonly ToolFinding[]): QualitySummary {
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  const parts: string[] = [];
  if (errors > 0) parts.push(plural(errors, 'error'));
  if (warnings > 0) parts.push(plural(warnings, 'warning'));
  return { errors, warnings, color: errors > 0 ? 'red' : warnings > 0 ? 'orange' : null, label: parts.join(', ') };
}

/** The server's total for the sidebar header: "3 errors, 5 warnings in 4 tools". */
export function totalLabel(lint: ToolLint): string {
  const tools = new Set(lint.findings.map((f) => f.index)).size;
  const s = summarize(lint.findings);
  return s.label ? `${s.label} in ${plural(tools, 'tool')}` : 'no findings';
}
