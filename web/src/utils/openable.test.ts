import { describe, expect, it } from 'vitest';
import cases from '../../../crates/mcpscope-proto/src/openable_cases.json';
import { openable } from './openable';

describe('openable', () => {
  it.each(cases as { url: string; refused?: string }[])('$url', ({ url, refused }) => {
    const got = openable(url);
    if (refused === undefined) expect(got).toMatchObject({ ok: true });
    else expect(got).toMatchObject({ ok: false, reason: expect.stringContaining(refused) });
  });
});
