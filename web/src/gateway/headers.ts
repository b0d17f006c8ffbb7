// The `Mcp-*` routing headers of a 2026-07-28 request (SEP-2243), mirrored from
// `mcpscope_proto::headers` for the gateway page, which is an MCP client of the relay
// (docs/gateway.md). Only what the page sends: the value encoding, the `x-mcp-header`
// annotations of a tool's `inputSchema` (a tool with an invalid one is excluded), the
// `Mcp-Param-*` values of a call and the standard headers. Both are tested against
// crates/mcpscope-proto/src/headers_cases.json, so a rule changed on one side fails the other.

import type { Json, JsonObject } from '../utils/types';

const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';

/** Standard Base64 (with padding) of the UTF-8 bytes of `s`. */
function base64Utf8(s: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(s)) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** One header value (`Mcp-Name`, `Mcp-Param-*`): plain when it is visible ASCII or inner spaces,
 *  else `=?base64?…?=` — also when empty, padded, or itself shaped like the sentinel. */
export function encodeValue(s: string): string {
  const plain =
    s.length > 0 &&
    /^[\x20-\x7e]*$/.test(s) &&
    !s.startsWith(' ') &&
    !s.endsWith(' ') &&
    !(s.startsWith(SENTINEL_START) && s.endsWith(SENTINEL_END));
  return plain ? s : `${SENTINEL_START}${base64Utf8(s)}${SENTINEL_END}`;
}

/** One valid annotation: header `Mcp-Param-{name}` mirrors the argument at `path`. */
export interface ParamHeader {
  name: string;
  path: string[];
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const TCHAR = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]$/;

/** The `x-mcp-header` annotations of an `inputSchema`: the headers to mirror, or why the whole
 *  tool must be excluded (the spec: a client MUST exclude it and SHOULD warn). */
export function paramHeaders(inputSchema: Json): { ok: true; headers: ParamHeader[] } | { ok: false; reason: string } {
  try {
    if (isObject(inputSchema) && 'x-mcp-header' in inputSchema) {
      throw new Error('x-mcp-header on the root of inputSchema (only on properties)');
    }
    const found: ParamHeader[] = [];
    walkProperties(inputSchema, [], found);
    // Anywhere else (items, composition keywords, $defs, …) is not reachable by properties alone.
    findUnreachable(inputSchema, false, []);
    const seen = new Set<string>();
    for (const h of found) {
      const key = h.name.toLowerCase();
      if (seen.has(key)) throw new Error(`x-mcp-header ${JSON.stringify(h.name)} is used more than once (names are case-insensitive)`);
      seen.add(key);
    }
    return { ok: true, headers: found };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

function walkProperties(schema: Json, path: string[], out: ParamHeader[]) {
  const props = isObject(schema) ? schema.properties : undefined;
  if (!isObject(props)) return;
  for (const [key, prop] of Object.entries(props)) {
    const here = [...path, key];
    if (isObject(prop) && 'x-mcp-header' in prop) {
      const at = here.join('.');
      const name = prop['x-mcp-header'];
      if (typeof name !== 'string') throw new Error(`x-mcp-header at ${at} is not a string`);
      if (name === '') throw new Error(`x-mcp-header at ${at} is empty`);
      const bad = Array.from(name).find((c) => !TCHAR.test(c));
      if (bad !== undefined) {
        throw new Error(`x-mcp-header ${JSON.stringify(name)} at ${at} has a character not allowed in a header name: ${JSON.stringify(bad)}`);
      }
      const type = prop.type;
      if (typeof type !== 'string') {
        throw new Error(`x-mcp-header ${JSON.stringify(name)} at ${at} is on a property without a single primitive type`);
      }
      if (!['string', 'integer', 'boolean'].includes(type)) {
        throw new Error(`x-mcp-header ${JSON.stringify(name)} at ${at} is on a property of type ${JSON.stringify(type)} (only string, integer, boolean)`);
      }
      out.push({ name, path: here });
    }
    walkProperties(prop, here, out);
  }
}

/** Keys whose values are data, not schemas: an `x-mcp-header` inside them annotates nothing. */
const DATA_KEYS = new Set(['x-mcp-header', 'default', 'const', 'enum', 'examples']);

function findUnreachable(schema: Json, unreachable: boolean, at: string[]) {
  if (Array.isArray(schema)) {
    schema.forEach((item, i) => findUnreachable(item, unreachable, [...at, String(i)]));
    return;
  }
  if (!isObject(schema)) return;
  if (unreachable && 'x-mcp-header' in schema) {
    throw new Error(`x-mcp-header at ${at.join('/')} is not reachable through properties alone`);
  }
  for (const [key, child] of Object.entries(schema)) {
    if (key === 'properties') {
      if (isObject(child)) {
        for (const [name, prop] of Object.entries(child)) findUnreachable(prop, unreachable, [...at, `properties/${name}`]);
      }
      continue;
    }
    if (DATA_KEYS.has(key)) continue;
    findUnreachable(child, true, [...at, key]);
  }
}

/** An argument as header text: strings as they are, booleans lowercase, integers in decimal;
 *  anything else (absent, null, objects, arrays) has no header. */
function headerText(v: Json | undefined): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 53 ? v.toFixed(0) : String(v);
  return undefined;
}

/** The `Mcp-Param-*` headers of a call: each annotated argument present and primitive, encoded. */
export function paramHeaderValues(headers: ParamHeader[], args: Json): [string, string][] {
  const out: [string, string][] = [];
  for (const h of headers) {
    let v: Json | undefined = args;
    for (const p of h.path) v = isObject(v) ? v[p] : undefined;
    const text = headerText(v);
    if (text !== undefined) out.push([`Mcp-Param-${h.name}`, encodeValue(text)]);
  }
  return out;
}

/** The params field `Mcp-Name` mirrors, per method (mcpscope_proto::method's `name_field`). */
const NAME_FIELD: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** `MCP-Protocol-Version`, `Mcp-Method` and, where the method names something, `Mcp-Name`. */
export function standardHeaders(version: string, method: string, params: Json | undefined): [string, string][] {
  const out: [string, string][] = [
    ['MCP-Protocol-Version', version],
    ['Mcp-Method', method],
  ];
  const field = NAME_FIELD[method];
  const name = field && isObject(params) ? params[field] : undefined;
  if (typeof name === 'string') out.push(['Mcp-Name', encodeValue(name)]);
  return out;
}
