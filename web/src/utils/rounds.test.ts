import { describe, expect, it } from 'vitest';
import type { Interaction } from '../generated/events';
import type { ApiErrorBody, Json } from './types';
import { groupRounds, historyRounds, keyOf, roundLabel, roundsExceeded, urlElicitationsRequired } from './rounds';

const ask = (id: number, extra: Partial<Interaction> = {}): Interaction => ({
  id,
  server: 'demo',
  historyId: 7,
  kind: 'elicitationForm',
  method: 'elicitation/create',
  payload: { message: 'm', requestedSchema: { type: 'object', properties: {} } },
  origin: `server request ${id}`,
  round: null,
  key: null,
  roundKeys: null,
  maxRounds: null,
  openedAtUs: 0,
  deadlineUs: 300_000_000,
  ...extra,
});

const key = (id: number, k: string, round: number, keys: number, extra: Partial<Interaction> = {}) =>
  ask(id, { round, key: k, roundKeys: keys, maxRounds: 10, origin: `input_required round ${round} of tools/call, key "${k}"`, ...extra });

describe('groupRounds', () => {
  it('puts the keys of one round in one dialog, in place of the first', () => {
    const list = [ask(1), key(2, 'email', 2, 3), key(3, 'newsletter', 2, 3), ask(4), key(5, 'team', 2, 3)];
    const g = groupRounds(list);
    expect(g.map((x) => x.kind)).toEqual(['one', 'round', 'one']);
    const r = g[1];
    expect(r.kind === 'round' && r.items.map((i) => i.key)).toEqual(['email', 'newsletter', 'team']);
    expect(r.kind === 'round' && r.keys).toBe(3);
  });
  it('keeps a round of one key, legacy requests and other calls’ rounds apart', () => {
    const list = [key(1, 'name', 1, 1), key(2, 'a', 2, 2, { historyId: 8 }), key(3, 'b', 2, 2, { historyId: 9 }), ask(4)];
    expect(groupRounds(list).map((x) => (x.kind === 'round' ? x.items.length : 'one'))).toEqual(['one', 1, 1, 'one']);
  });
});

describe('roundLabel', () => {
  it('names the latest round and the engine’s limit', () => {
    expect(roundLabel([key(1, 'a', 2, 1)])).toBe('Round 2 of at most 10');
    expect(roundLabel([ask(1)])).toBeNull();
    expect(roundLabel([key(1, 'a', 3, 1, { maxRounds: null })])).toBe('Round 3');
  });
});

describe('keyOf', () => {
  it('reads the key, or the origin text of a history row', () => {
    expect(keyOf({ key: 'email' })).toBe('email');
    expect(keyOf({ origin: 'input_required round 2 of tools/call, key "team"' })).toBe('team');
    expect(keyOf({ origin: 'server request 4' })).toBeNull();
  });
});

describe('roundsExceeded', () => {
  it('says the limit plainly, and nothing for another error', () => {
    const t = roundsExceeded({ code: 'input_rounds_exceeded', message: 'tools/call: the server asked for input 10 times without completing (limit --max-input-rounds 10)' });
    expect(t).toContain('Stopped after 10 input_required rounds');
    expect(t).toContain('at most 10 rounds');
    expect(roundsExceeded({ code: 'timeout', message: 'x' })).toBeNull();
  });
});

describe('urlElicitationsRequired', () => {
  it('reads the URLs of a -32042 error and skips what is not one', () => {
    const e: ApiErrorBody = {
      code: 'rpc_error',
      message: 'needs a URL',
      rpcCode: -32042,
      data: { elicitations: [{ mode: 'url', url: 'https://example.com/c?e=1', elicitationId: 'e1', message: 'Open it' }, { mode: 'url' }, 'junk'] as Json[] },
    };
    expect(urlElicitationsRequired(e)).toEqual([{ url: 'https://example.com/c?e=1', elicitationId: 'e1', message: 'Open it' }]);
    expect(urlElicitationsRequired({ ...e, data: null })).toEqual([]);
    expect(urlElicitationsRequired({ ...e, rpcCode: -32602 })).toBeNull();
    const many = { ...e, data: { elicitations: Array.from({ length: 1000 }, (_, i) => ({ url: `https://x/${i}` })) } };
    expect(urlElicitationsRequired(many)?.length).toBe(10);
  });
});

describe('historyRounds', () => {
  it('groups a request’s questions by round with key, outcome, answer and offset', () => {
    const row = (round: number | null, k: string, answer: Json, offsetMs: number) => ({
      kind: 'serverRequest',
      offsetMs,
      data: { method: 'elicitation/create', round, origin: round === null ? 'server request 1' : `input_required round ${round} of tools/call, key "${k}"`, outcome: 'accepted', answer },
    });
    const rounds = historyRounds([
      row(1, 'name', { result: { action: 'accept', content: { name: 'Ada' } } }, 120),
      { kind: 'progress', offsetMs: 130, data: {} },
      row(2, 'email', { result: { action: 'decline' } }, 300),
      row(2, 'team', { error: { code: -1, message: 'no' } }, 310),
    ]);
    expect(rounds.map((r) => [r.round, r.questions.map((q) => q.key)])).toEqual([
      [1, ['name']],
      [2, ['email', 'team']],
    ]);
    expect(rounds[0].questions[0]).toMatchObject({ answer: 'accept {"name":"Ada"}', offsetMs: 120, answeredAfterMs: null });
    // A row says when it was asked (offsetMs) and, apart, how long the answer took.
    const timed = historyRounds([{ kind: 'serverRequest', offsetMs: 3, data: { method: 'elicitation/create', answeredAfterMs: 20_705 } }]);
    expect(timed[0].questions[0]).toMatchObject({ offsetMs: 3, answeredAfterMs: 20_705 });
    expect(rounds[1].questions.map((q) => q.answer)).toEqual(['decline', 'refused: no']);
  });
});
