// RFC 6570 URI Template expansion (levels 1–4) and variable discovery, for resource templates.
// Pure: no I/O. Values are strings, lists of strings, or [key, value] pairs (maps).

export type TemplateValue = string | string[] | [string, string][] | undefined | null;

interface OperatorSpec {
  first: string;
  sep: string;
  named: boolean;
  ifEmpty: string;
  allowReserved: boolean;
}

const OPERATORS: Record<string, OperatorSpec> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', allowReserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', allowReserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', allowReserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', allowReserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', allowReserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', allowReserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', allowReserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', allowReserved: false },
};

interface VarSpec {
  name: string;
  explode: boolean;
  prefix?: number;
}

export interface TemplateExpression {
  operator: string;
  vars: VarSpec[];
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encodeChar(ch: string): string {
  return Array.from(new TextEncoder().encode(ch))
    .map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0'))
    .join('');
}

/** Percent-encode `s`; with `allowReserved`, reserved characters and existing %XX triplets stay. */
export function encodeValue(s: string, allowReserved: boolean): string {
  let out = '';
  const chars = Array.from(s);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (UNRESERVED.test(ch)) {
      out += ch;
    } else if (allowReserved && RESERVED.test(ch)) {
      out += ch;
    } else if (
      allowReserved &&
      ch === '%' &&
      /^[0-9A-Fa-f]{2}$/.test((chars[i + 1] ?? '') + (chars[i + 2] ?? ''))
    ) {
      out += ch;
    } else {
      out += encodeChar(ch);
    }
  }
  return out;
}

function parseExpression(body: string): TemplateExpression {
  let operator = '';
  if (body.length > 0 && '+#./;?&'.includes(body[0])) {
    operator = body[0];
    body = body.slice(1);
  }
  const vars = body
    .split(',')
    .filter((v) => v.length > 0)
    .map((v): VarSpec => {
      if (v.endsWith('*')) return { name: v.slice(0, -1), explode: true };
      const colon = v.indexOf(':');
      if (colon >= 0) {
        const prefix = Number(v.slice(colon + 1));
        return { name: v.slice(0, colon), explode: false, prefix: Number.isFinite(prefix) ? prefix : undefined };
      }
      return { name: v, explode: false };
    });
  return { operator, vars };
}

/** The expressions of a template, in order. */
export function parseTemplate(template: string): (string | TemplateExpression)[] {
  const parts: (string | TemplateExpression)[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      parts.push(template.slice(i));
      break;
    }
    const close = template.indexOf('}', open);
    if (close < 0) {
      parts.push(template.slice(i));
      break;
    }
    if (open > i) parts.push(template.slice(i, open));
    parts.push(parseExpression(template.slice(open + 1, close)));
    i = close + 1;
  }
  return parts;
}

/** The variable names of a template, in order of first appearance. */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const part of parseTemplate(template)) {
    if (typeof part === 'string') continue;
    for (const v of part.vars) if (!names.includes(v.name)) names.push(v.name);
  }
  return names;
}

function isDefined(value: TemplateValue): value is string | string[] | [string, string][] {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function expandExpression(expr: TemplateExpression, values: Record<string, TemplateValue>): string {
  const op = OPERATORS[expr.operator] ?? OPERATORS[''];
  const pieces: string[] = [];
  for (const spec of expr.vars) {
    const value = values[spec.name];
    if (!isDefined(value)) continue;
    const enc = (s: string) => encodeValue(s, op.allowReserved);
    if (typeof value === 'string') {
      const v = spec.prefix !== undefined ? Array.from(value).slice(0, spec.prefix).join('') : value;
      if (op.named) {
        pieces.push(v === '' ? spec.name + op.ifEmpty : `${spec.name}=${enc(v)}`);
      } else {
        pieces.push(enc(v));
      }
      continue;
    }
    const isMap = value.length > 0 && Array.isArray(value[0]);
    if (!spec.explode) {
      const joined = isMap
        ? (value as [string, string][]).map(([k, v]) => `${enc(k)},${enc(v)}`).join(',')
        : (value as string[]).map(enc).join(',');
      pieces.push(op.named ? `${spec.name}=${joined}` : joined);
      continue;
    }
    if (isMap) {
      for (const [k, v] of value as [string, string][]) {
        pieces.push(op.named && v === '' ? enc(k) + op.ifEmpty : `${enc(k)}=${enc(v)}`);
      }
    } else {
      for (const v of value as string[]) {
        pieces.push(op.named ? (v === '' ? spec.name + op.ifEmpty : `${spec.name}=${enc(v)}`) : enc(v));
      }
    }
  }
  if (pieces.length === 0) return '';
  return op.first + pieces.join(op.sep);
}

/** Expand `template` with `values` (RFC 6570 §3). Undefined and empty-list variables are skipped. */
export function expandTemplate(template: string, values: Record<string, TemplateValue>): string {
  return parseTemplate(template)
    .map((part) => (typeof part === 'string' ? part : expandExpression(part, values)))
    .join('');
}

/** Whether every variable of the template has a non-empty value. */
export function templateComplete(template: string, values: Record<string, string | undefined>): boolean {
  return templateVariables(template).every((name) => (values[name] ?? '') !== '');
}
