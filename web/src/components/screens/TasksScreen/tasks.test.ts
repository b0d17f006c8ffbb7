import { describe, expect, it } from 'vitest';
import type { Interaction } from '../../../generated/events';
import { durationText, interactionsOf, pollingText, splitTasks, statusColor, ttlText, type TaskView } from './tasks';

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
  updatedUs: 0,
  stale: false,
  problems: [],
  ...over,
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
    const q = (id: number, server: string, taskId?: string): Interaction => ({
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
    });
    const all = [q(1, 's', 't1'), q(2, 's'), q(3, 'other', 't1'), q(4, 's', 't2')];
    expect(interactionsOf(all, 's', 't1').map((i) => i.id)).toEqual([1]);
  });
});
