// Testing Profiles in the page: the editor's draft checked before it is sent and round-tripped,
// the summaries, and the sampling card's pre-fill only when the switches ask for it.
import { describe, expect, it } from 'vitest';
import type { ProfileAnswer } from '../generated/events';
import type { Json } from './types';
import { MAX_DELAY_MS, choiceSummary, draftOf, emptyDraft, prefillOf, profileOf, strategySummary } from './profiles';

describe('profileOf', () => {
  it('makes each strategy from the draft', () => {
    const d = { ...emptyDraft(), name: 'Quick Mock', text: 'mock', model: ' m ' };
    expect(profileOf(d)).toEqual({ profile: { name: 'Quick Mock', strategy: { kind: 'fixed', text: 'mock' }, model: 'm' } });
    expect(profileOf({ ...d, kind: 'echo' })).toEqual({ profile: { name: 'Quick Mock', strategy: { kind: 'echo' }, model: 'm' } });
    expect(profileOf({ ...d, kind: 'delay', ms: '1500', stopReason: 'maxTokens' })).toEqual({
      profile: { name: 'Quick Mock', strategy: { kind: 'delay', ms: 1500, text: 'mock' }, model: 'm', stopReason: 'maxTokens' },
    });
    expect(profileOf({ ...d, kind: 'toolUse', tool: ' get_weather ', input: '{"city": "Paris"}' })).toEqual({
      profile: { name: 'Quick Mock', strategy: { kind: 'toolUse', tool: 'get_weather', input: { city: 'Paris' } }, model: 'm' },
    });
  });

  it('refuses what the backend would, naming the field, and sends nothing', () => {
    const bad = (over: object) => {
      const r = profileOf({ ...emptyDraft(), name: 'ok', ...over });
      return 'errors' in r ? r.errors : {};
    };
    expect(bad({ name: '' }).name).toContain('needs a name');
    expect(bad({ name: ' pad' }).name).toContain('spaces');
    expect(bad({ name: 'x'.repeat(101) }).name).toContain('100');
    expect(bad({ name: 'a\u0007b' }).name).toContain('control');
    expect(bad({ kind: 'delay', ms: String(MAX_DELAY_MS + 1) }).ms).toContain('300000');
    expect(bad({ kind: 'delay', ms: '1.5' }).ms).toBeDefined();
    expect(bad({ kind: 'toolUse', input: '[1]' }).input).toContain('JSON object');
    expect(bad({ kind: 'toolUse', input: '{oops' }).input).toContain('Not JSON');
    expect(bad({ text: 'é'.repeat(140_000) }).text).toContain('KiB');
  });

  it('round-trips a profile through its draft', () => {
    const p = { name: 'T', strategy: { kind: 'toolUse' as const, tool: 't', input: { a: [1, 2] } }, model: 'mm', stopReason: 'toolUse' };
    expect(profileOf(draftOf(p))).toEqual({ profile: p });
    const slow = { name: 'S', strategy: { kind: 'delay' as const, ms: 250, text: 'x' }, model: '' };
    expect(profileOf(draftOf(slow))).toEqual({ profile: slow });
  });
});

describe('summaries', () => {
  it('say what a strategy and a choice do', () => {
    expect(strategySummary({ kind: 'delay', ms: 1500, text: 'late' })).toBe('after 1.5 s: «late»');
    expect(strategySummary({ kind: 'toolUse', tool: '', input: {} })).toContain('first tool');
    expect(strategySummary({ kind: 'fixed', text: 'y'.repeat(500) }).length).toBeLessThan(80);
    expect(choiceSummary({ profile: null, autoRespond: true, withoutStopping: true })).toContain('wait for their card');
    expect(choiceSummary({ profile: 'Q', autoRespond: true, withoutStopping: false })).toContain('pre-fills');
    expect(choiceSummary({ profile: 'Q', autoRespond: true, withoutStopping: true })).toContain('by itself');
  });
});

describe('prefillOf', () => {
  const answer = (autoRespond: boolean, withoutStopping: boolean, content: Json): ProfileAnswer => ({
    profile: { name: 'Q', strategy: { kind: 'fixed', text: 'mock' }, model: 'mock-llm' },
    active: { profile: 'Q', autoRespond, withoutStopping },
    answer: { action: 'accept', content: { role: 'assistant', content, model: 'mock-llm', stopReason: 'endTurn' } },
    refused: null,
    delayMs: 0,
  });
  const text = { type: 'text', text: 'mock <b>answer</b>' };

  it('fills the Response editor only with Auto-respond on and without stopping off', () => {
    expect(prefillOf(answer(true, false, text))).toEqual({ text: 'mock <b>answer</b>', model: 'mock-llm', stopReason: 'endTurn' });
    expect(prefillOf(answer(false, false, text))).toBeNull();
    expect(prefillOf(answer(true, true, text))).toBeNull();
    expect(prefillOf(null)).toBeNull();
  });

  it('leaves a tool use or a rejection to the Auto-respond button', () => {
    expect(prefillOf(answer(true, false, [{ type: 'tool_use', id: 'x', name: 't', input: {} }]))).toBeNull();
    const rejected = { ...answer(true, false, text), answer: { action: 'decline' } };
    expect(prefillOf(rejected)).toBeNull();
  });
});
