import { describe, expect, it } from 'vitest';
import type { Interaction, ServerRequestEvent } from '../../../generated/events';
import { answeredOf, answerText, applyPage, durationText, progressOf, spanText, timingText, interactionsOf, pollingText, splitTasks, statusColor, ttlText, type TaskView, type TasksPage } from './tasks';

const task = (over: Partial<TaskView>): TaskView => ({
  taskId: 't',
  status: 'working',
  knownStatus: true,
  terminal: false,
  statusMessage: null,
  createdAt: null,
  lastUpdatedAt: null,
  polling: { state: 'polling', everyMs: 500, reason: null, polls: 0 },
  source: 'created',
  tool: null,
  historyId: null,
  requestId: null,
  hasResult: false,
  hasError: false,
  resultBytes: null,
  inputRequests: [],
  progress: null,
  updatedUs: 0,
  stale: false,
  problems: [],
  ...over,
});

describe('task timing', () => {
  it('reads a span as a clock does', () => {
    expect(spanText(45_400)).toBe('45s');
    expect(spanText(90_000)).toBe('1m 30s');
    expect(spanText(2 * 3600_000 + 5 * 60_000)).toBe('2h 5m');
    expect(spanText(-5_000)).toBe('0s');
  });

  it('says elapsed while the task runs and duration once it ended, from the server times', () => {
    const createdAt = '2026-01-01T10:00:00Z';
    const start = Date.parse(createdAt);
    expect(timingText(task({ createdAt }), start + 45_000)).toMatch(/^started .+ · elapsed 45s$/);
    const done = task({ createdAt, lastUpdatedAt: '2026-01-01T10:01:30Z', status: 'completed', terminal: true });
    expect(timingText(done, start + 999_000)).toMatch(/^ended .+ · duration 1m 30s$/);
    expect(timingText(task({}), start)).toBe('started — · elapsed —');
    expect(timingText(task({ createdAt, lastUpdatedAt: 'soon', terminal: true }), start)).toBe('ended — · duration —');
  });
});

describe('task progress', () => {
  it('draws the task own progress, else the creating call, full once completed', () => {
    const own = { progress: 40, total: 100, message: 'step 2 of 5' };
    expect(progressOf(task({ progress: own }))).toEqual({ pct: 40, text: '40% (40 of 100)', message: 'step 2 of 5' });
    expect(progressOf(task({}), { progress: 1, total: 4, message: null })).toEqual({ pct: 25, text: '25% (1 of 4)', message: null });
    expect(progressOf(task({}))).toBeNull();
    expect(progressOf(task({ status: 'completed', terminal: true }))?.pct).toBe(100);
    expect(progressOf(task({ progress: { progress: 7, total: null, message: null } }))?.text).toBe('7 done (no total)');
  });
});

describe('task words', () => {
  it('names a TTL as sent: unlimited, absent, a duration, not a number', () => {
    expect(ttlText(null)).toBe('unlimited');
    expect(ttlText(undefined)).toBe('not given');
    expect(ttlText(60_000)).toBe('60 s');
    expect(ttlText('soon')).toBe('"soon" (not a number)');
  });

  it('keeps a poll interval of 10^12 ms readable', () => {
    expect(durationText(1e12)).toBe('11574.1 days');
    expect(durationText(250)).toBe('250 ms');
  });

  it('says why the interval differs from the server and why polling stopped', () => {
    const bounded = pollingText({ state: 'polling', everyMs: 250, reason: 'the server asks for 0 ms; never faster than 250 ms', polls: 3 }, 0);
    expect(bounded).toBe('polling every 250 ms (the server asks for 0 ms; never faster than 250 ms)');
    expect(pollingText({ state: 'stopped', everyMs: null, reason: 'tasks/get failed 3 times in a row', polls: 3 }, 500)).toContain('tasks/get failed 3 times');
    expect(pollingText({ state: 'idle', everyMs: null, reason: null, polls: 0 }, undefined)).toContain('not followed');
  });

  it('shows an invented status in its own colour', () => {
    expect(statusColor(task({ status: 'pondering', knownStatus: false }))).toBe('orange');
    expect(statusColor(task({ status: 'completed', terminal: true }))).toBe('green');
  });

  it('puts active tasks first and ended ones newest first', () => {
    const { active, ended } = splitTasks([task({ taskId: 'a', terminal: true }), task({ taskId: 'b' }), task({ taskId: 'c', terminal: true })]);
    expect(active.map((t) => t.taskId)).toEqual(['b']);
    expect(ended.map((t) => t.taskId)).toEqual(['c', 'a']);
  });

  it('finds the questions of a task by related-task, on its server only', () => {
    // Cast: the fields this test does not read (round keys, …) are left out.
    const q = (id: number, server: string, taskId?: string): Interaction =>
      ({
      id,
      server,
      historyId: null,
      kind: 'elicitationForm',
      method: 'elicitation/create',
      payload: taskId ? { _meta: { 'io.modelcontextprotocol/related-task': { taskId } } } : {},
      origin: '',
      round: null,
      key: null,
      roundKeys: null,
      maxRounds: null,
      openedAtUs: 0,
      deadlineUs: 0,
      }) as Interaction;
    const all = [q(1, 's', 't1'), q(2, 's'), q(3, 'other', 't1'), q(4, 's', 't2')];
    expect(interactionsOf(all, 's', 't1').map((i) => i.id)).toEqual([1]);
  });
});

describe('a page kept from snapshots and deltas', () => {
  const page = (tasks: TaskView[], over: Partial<TasksPage> = {}): TasksPage => ({
    server: 's',
    support: { era: 'legacy', tasks: true, list: true, cancel: true, toolCall: true, ttl: true },
    version: 1,
    unchanged: false,
    delta: false,
    tasks,
    omitted: 0,
    minPollMs: 250,
    maxPollMs: 30000,
    ...over,
  });
  it('replaces changed rows in place and appends new ones; a snapshot replaces all', () => {
    const first = page([task({ taskId: 'a' }), task({ taskId: 'b' })]);
    const delta = page([task({ taskId: 'b', status: 'completed', terminal: true }), task({ taskId: 'c' })], { version: 5, delta: true });
    const next = applyPage(first, delta);
    expect(next.tasks.map((t) => `${t.taskId}:${t.status}`)).toEqual(['a:working', 'b:completed', 'c:working']);
    expect(next.version).toBe(5);
    expect(next.delta).toBe(false);
    expect(applyPage(next, page([task({ taskId: 'z' })], { version: 9 })).tasks.map((t) => t.taskId)).toEqual(['z']);
  });
  it('keeps the page when nothing changed, and takes a delta whole when it has no page yet', () => {
    const first = page([task({ taskId: 'a' })]);
    expect(applyPage(first, page([], { unchanged: true }))).toBe(first);
    expect(applyPage(null, page([task({ taskId: 'q' })], { delta: true })).tasks).toHaveLength(1);
  });
});

describe('what a task asked', () => {
  const req = (server: string, taskId: string | null, answer: ServerRequestEvent['answer']): ServerRequestEvent => ({
    server,
    method: 'elicitation/create',
    params: taskId ? { message: 'm', _meta: { 'io.modelcontextprotocol/related-task': { taskId } } } : { message: 'm' },
    origin: 'server request 1',
    answer,
    historyId: null,
  });
  it('lists only the answered requests of that task, with what the server got', () => {
    const all = [req('s', 't1', { result: { action: 'accept' } }), req('s', null, {}), req('s', 't2', {}), req('o', 't1', {}), req('s', 't1', { error: { code: -1, message: 'declined' } })];
    const mine = answeredOf(all, 's', 't1');
    expect(mine.map((r) => answerText(r.answer))).toEqual(['accept', 'error -1: declined']);
  });
});
