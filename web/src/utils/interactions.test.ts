import { describe, expect, it } from 'vitest';
import type { Interaction, InteractionClosed } from '../generated/events';
import {
  closed,
  completeWait,
  dialogHeader,
  dialogTitle,
  fromSnapshot,
  ofRequest,
  opened,
  shortText,
  summary,
  timeLeft,
  timeoutText,
  urlParts,
  waitAfter,
} from './interactions';
import type { HistoryEntry } from './types';

const ask = (id: number, extra: Partial<Interaction> = {}): Interaction => ({
  id,
  server: 'demo',
  historyId: 7,
  kind: 'elicitationForm',
  method: 'elicitation/create',
  payload: { message: 'Please fill in', requestedSchema: { type: 'object', properties: { a: {}, b: {} } } },
  origin: `server request ${id}`,
  round: null,
  key: null,
  roundKeys: null,
  maxRounds: null,
  openedAtUs: 1_000_000_000_000,
  deadlineUs: 1_000_000_000_000 + 300_000_000,
  ...extra,
});

const closing = (i: Interaction, outcome: InteractionClosed['outcome']): InteractionClosed => ({
  id: i.id,
  server: i.server,
  historyId: i.historyId,
  kind: i.kind,
  method: i.method,
  round: i.round,
  outcome,
  reason: null,
  answer: { result: { action: 'accept' } },
});

describe('the pending list', () => {
  it('keeps each interaction once, oldest first, until it closes', () => {
    let l = opened([], ask(3));
    l = opened(l, ask(1));
    l = opened(l, ask(3));
    expect(l.map((i) => i.id)).toEqual([1, 3]);
    expect(closed(l, 1).map((i) => i.id)).toEqual([3]);
    expect(closed(l, 99)).toBe(l);
  });
  it('takes the snapshot, plus what opened while it was asked for, minus what closed', () => {
    // 1 closed while events were lost; 4 opened after the snapshot was taken; 2 closed after.
    const list = [ask(1), ask(2), ask(4)];
    const got = fromSnapshot([ask(2), ask(3)], list, new Set([4]), new Set([2]));
    expect(got.map((i) => i.id)).toEqual([3, 4]);
  });
});

describe('what a dialog says', () => {
  it('names a legacy request and an input_required round as 000 does', () => {
    expect(dialogTitle(ask(1))).toBe('Elicitation Request');
    expect(dialogHeader(ask(1))).toBe('demo is requesting information');
    expect(dialogTitle(ask(1, { round: 2 }))).toBe('Operation Needs Input');
    expect(dialogHeader(ask(1, { round: 2 }))).toBe('demo needs input to continue');
    expect(dialogTitle(ask(1, { kind: 'elicitationUrl', round: 1 }))).toBe('Operation Needs Input');
    expect(dialogHeader(ask(1, { kind: 'sampling' }))).toBe('demo is asking for a model response');
    expect(dialogHeader(ask(1, { kind: 'sampling', round: 1 }))).toBe('demo needs input to continue');
  });
  it('summarises each kind in one line', () => {
    expect(summary(ask(1))).toBe('Please fill in · 2 fields');
    expect(summary(ask(1, { kind: 'elicitationUrl', payload: { message: 'Go', url: 'https://example.com/x' } }))).toBe('Go · example.com');
    expect(summary(ask(1, { kind: 'sampling', method: 'sampling/createMessage', payload: { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }] } }))).toBe('Hi');
    expect(summary(ask(1, { kind: 'other', method: 'x/y', payload: 'not an object' }))).toBe('x/y');
    expect(summary(ask(1, { payload: null }))).toBe('(no message) · 0 fields');
  });
  it('cuts a huge text', () => {
    expect(shortText('a'.repeat(10_000)).length).toBe(201);
    expect(shortText('short')).toBe('short');
  });
  it('says the time left and the whole timeout', () => {
    const i = ask(1);
    expect(timeoutText(i)).toBe('5 min');
    expect(timeLeft(i, i.openedAtUs / 1000 + 1_500)).toBe('4:59');
    expect(timeLeft(i, i.deadlineUs / 1000 + 10_000)).toBe('0:00');
    expect(timeoutText(ask(1, { deadlineUs: 1_000_000_000_000 + 90_000_000 }))).toBe('1 min 30 s');
  });
});

describe('the cause of an interaction', () => {
  it('is found through the history entry of the view’s request', () => {
    const h = [{ id: 7, requestId: 'req-a' }, { id: 8, requestId: 'req-b' }] as HistoryEntry[];
    const l = [ask(1), ask(2, { historyId: 8 }), ask(3, { historyId: null })];
    expect(ofRequest(l, h, 'req-a').map((i) => i.id)).toEqual([1]);
    expect(ofRequest(l, h, 'req-c')).toEqual([]);
  });
});

describe('URLs', () => {
  it('splits out the domain to emphasise', () => {
    expect(urlParts('https://auth.example.com/oauth?state=x')).toEqual({ ok: true, scheme: 'https://', host: 'auth.example.com', rest: '/oauth?state=x', openable: true, refused: null });
    // A look-alike host stays what it is: the real domain is what follows the userinfo.
    const tricky = urlParts('https://example.com@evil.test/');
    expect(tricky.host).toBe('evil.test');
    expect(tricky.scheme).toBe('https://example.com@');
  });
  it('never offers to open a script or a non-URL', () => {
    expect(urlParts('javascript:alert(1)').openable).toBe(false);
    expect(urlParts('data:text/html,<script>x</script>').openable).toBe(false);
    expect(urlParts('not a url')).toMatchObject({ ok: false, openable: false, rest: 'not a url' });
    expect(urlParts('file:///etc/passwd')).toMatchObject({ openable: false, refused: expect.stringContaining('the file: scheme is refused') });
    expect(urlParts('http://auth.example.com/')).toMatchObject({ openable: false, refused: expect.stringContaining('only on this machine') });
  });
});

describe('URL waits', () => {
  it('an accepted legacy URL elicitation waits for its completion notification', () => {
    const i = ask(5, { kind: 'elicitationUrl', payload: { url: 'https://x.test', elicitationId: 'e-1', message: 'm' } });
    const w = waitAfter([], i, closing(i, 'accepted'));
    expect(w).toMatchObject([{ interactionId: 5, elicitationId: 'e-1', completed: false }]);
    expect(completeWait(w, 'demo', { elicitationId: 'other' })[0].completed).toBe(false);
    expect(completeWait(w, 'elsewhere', { elicitationId: 'e-1' })[0].completed).toBe(false);
    expect(completeWait(w, 'demo', { elicitationId: 'e-1' })[0].completed).toBe(true);
  });
  it('a declined one, or one without an id (2026-07-28), does not wait', () => {
    const i = ask(5, { kind: 'elicitationUrl', payload: { url: 'https://x.test', elicitationId: 'e-1' } });
    expect(waitAfter([], i, closing(i, 'declined'))).toEqual([]);
    const modern = ask(6, { kind: 'elicitationUrl', round: 1, payload: { url: 'https://x.test', elicitationId: '' } });
    expect(waitAfter([], modern, closing(modern, 'accepted'))).toEqual([]);
  });
});
