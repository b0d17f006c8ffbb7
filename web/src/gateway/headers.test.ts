import { describe, expect, it } from 'vitest';
import cases from '../../../crates/mcpscope-proto/src/headers_cases.json';
import type { Json } from '../utils/types';
import { encodeValue, paramHeaders, paramHeaderValues, standardHeaders, type ParamHeader } from './headers';

// The same cases mcpscope_proto::headers is tested against (every_shared_case_gets_its_headers).
describe('Mcp-* headers (shared cases with mcpscope-proto)', () => {
  it.each(cases.encode)('encodes $value', ({ value, encoded }) => {
    expect(encodeValue(value)).toBe(encoded);
  });

  it.each(cases.annotations as unknown as { about: string; schema: Json; headers?: ParamHeader[]; invalid?: string }[])(
    'annotations: $about',
    ({ schema, headers, invalid }) => {
      const got = paramHeaders(schema);
      if (invalid === undefined) expect(got).toEqual({ ok: true, headers });
      else expect(got).toMatchObject({ ok: false, reason: expect.stringContaining(invalid) });
    },
  );

  it.each(cases.values as unknown as { about: string; headers: ParamHeader[]; arguments: Json; out: [string, string][] }[])(
    'values: $about',
    ({ headers, arguments: args, out }) => {
      expect(paramHeaderValues(headers, args)).toEqual(out);
    },
  );

  it.each(cases.standard as unknown as { version: string; method: string; params: Json; out: [string, string][] }[])(
    'standard headers of $method',
    ({ version, method, params, out }) => {
      expect(standardHeaders(version, method, params ?? undefined)).toEqual(out);
    },
  );
});
