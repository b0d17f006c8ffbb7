import { describe, expect, it } from 'vitest';
import { contentKind, messagesAsText, resourceAnnotations, resourceView } from './content';
import { base64Size, base64ToBytes, bytes, duration, errorHeadline, hexDump, truncate } from './format';
import { historyTarget, offsetLabel, replayArgs, replayTab, upsertEntry } from './history';
import { exportLogs, filterLogs, levelColor, levelRank } from './logs';
import { eraMode, statusDisplay, statusWithLatency, targetOf } from './status';
import { excludedMap, filterTools, isAppTool, parseMeta, toolBadges, type ToolDef } from './tools';
import type { HistoryEntry, LogEvent } from './types';

describe('status', () => {
  it('reads as 003_* draws it', () => {
    expect(statusDisplay({ status: 'connected', error: null, latencyMs: 3 })).toEqual({ color: 'green', label: 'Connected', pulsing: false });
    expect(statusDisplay({ status: 'connecting', error: null, latencyMs: null }).pulsing).toBe(true);
    expect(statusDisplay({ status: 'failed', error: { code: 'timeout', message: 'x', retries: 3 }, latencyMs: null }).label).toBe('Failed (3)');
    expect(statusDisplay({ status: 'disconnected', error: null, latencyMs: null }).color).toBe('gray');
    expect(statusWithLatency({ status: 'connected', error: null, latencyMs: 23 })).toBe('Connected (23ms)');
  });
  it('names the era mode', () => {
    expect(eraMode({ era: 'modern', transport: 'http' })).toBe('stateless');
    expect(eraMode({ era: 'legacy', transport: 'http', sessionId: 'abc' })).toBe('session');
    expect(eraMode({ era: 'legacy', transport: 'http' })).toBe('sessionless legacy');
  });
  it('shows the command or URL', () => {
    expect(targetOf({ target: '', entry: { command: 'npx', args: ['-y', 'srv'] } })).toBe('npx -y srv');
    expect(targetOf({ target: '', entry: { url: 'http://x/mcp' } })).toBe('http://x/mcp');
  });
});

describe('tools', () => {
  const tools: ToolDef[] = [
    { name: 'echo', description: 'Returns Echo' },
    { name: 'delete-everything', annotations: { destructiveHint: true, readOnlyHint: false } },
    { name: 'annotated-read', annotations: { readOnlyHint: true, openWorldHint: false, audience: ['user'] } },
    { name: 'show-app', _meta: { ui: { resourceUri: 'ui://demo/app.html' } } },
  ];
  it('makes annotation badges', () => {
    expect(toolBadges(tools[1]).map((b) => b.label)).toEqual(['destructive']);
    expect(toolBadges(tools[2]).map((b) => b.label)).toEqual(['user', 'read-only', 'closed-world']);
    expect(toolBadges({ name: 't', execution: { taskSupport: 'required' } }).map((b) => b.label)).toEqual(['task only']);
    expect(toolBadges({ name: 't', execution: { taskSupport: 'optional' } }).map((b) => b.label)).toEqual(['task']);
  });
  it('searches name and description', () => {
    expect(filterTools(tools, 'ECHO').map((t) => t.name)).toEqual(['echo']);
    expect(filterTools(tools, '').length).toBe(4);
  });
  it('reads excluded tools in either shape', () => {
    expect(excludedMap([['a', 'bad header']])).toEqual({ a: 'bad header' });
    expect(excludedMap([{ name: 'b', reason: 'dup' }])).toEqual({ b: 'dup' });
    expect(excludedMap(undefined)).toEqual({});
  });
  it('spots MCP Apps', () => {
    expect(isAppTool(tools[3])).toBe(true);
    expect(isAppTool(tools[0])).toBe(false);
  });
  it('parses _meta', () => {
    expect(parseMeta('')).toEqual({});
    expect(parseMeta('{"a":1}')).toEqual({ value: { a: 1 } });
    expect(parseMeta('[1]').error).toMatch(/object/);
  });
});

describe('format', () => {
  it('formats durations and sizes', () => {
    expect(duration(12.4)).toBe('12 ms');
    expect(duration(1500)).toBe('1.5 s');
    expect(duration(125_000)).toBe('2 m 05 s');
    expect(duration(null)).toBe('');
    expect(bytes(10)).toBe('10 B');
    expect(bytes(10 * 1024 * 1024)).toBe('10.0 MiB');
  });
  it('truncates', () => {
    expect(truncate('abcdef', 3)).toEqual({ text: 'abc', cut: true });
    expect(truncate('ab', 3)).toEqual({ text: 'ab', cut: false });
    expect(errorHeadline('short')).toEqual({ head: 'short', more: false });
    expect(errorHeadline('line one\nline two')).toEqual({ head: 'line one', more: true });
    expect(errorHeadline('x'.repeat(150)).more).toBe(true);
    // A failed server's stderr cause is on the card, not behind "Show more".
    const python = 'initialize: server process exited with status 1; last stderr lines:\n  Traceback (most recent call last):\n    File "s.py", line 1, in <module>\n  ModuleNotFoundError: No module named \'mcp\'';
    expect(errorHeadline(python).head).toBe("initialize: server process exited with status 1; last stderr lines:\nModuleNotFoundError: No module named 'mcp'");
    expect(errorHeadline('exited; last stderr lines:\n  listening on 7\n  bye').head).toBe('exited; last stderr lines:\nlistening on 7');
    expect(errorHeadline('exited; last stderr lines:\n  only line')).toEqual({ head: 'exited; last stderr lines:\nonly line', more: false });
  });
  it('dumps hex', () => {
    const bytesIn = base64ToBytes(btoa('Hello, world! 123'));
    expect(base64Size(btoa('Hello, world! 123'))).toBe(17);
    expect(hexDump(bytesIn)).toEqual([
      '00000000  48 65 6c 6c 6f 2c 20 77 6f 72 6c 64 21 20 31 32  Hello, world! 12',
      '00000010  33                                               3',
    ]);
  });
});

describe('content', () => {
  it('classifies blocks and resource contents', () => {
    expect(contentKind({ type: 'image', data: '', mimeType: 'image/png' })).toBe('image');
    expect(contentKind('x')).toBe('unknown');
    expect(resourceView({ mimeType: 'image/png', blob: 'AA==' })).toBe('image');
    expect(resourceView({ mimeType: 'application/octet-stream', blob: 'AA==' })).toBe('binary');
    expect(resourceView({ mimeType: 'text/plain', text: '{"a":1}' })).toBe('json');
    expect(resourceView({ mimeType: 'text/markdown', text: '# hi' })).toBe('text');
  });
  it('copies messages as text', () => {
    expect(
      messagesAsText([
        { role: 'user', content: { type: 'text', text: 'hi' } },
        { role: 'assistant', content: { type: 'image', data: '', mimeType: 'image/png' } },
      ]),
    ).toBe('user: hi\n\nassistant: [image]');
  });
  it('reads resource annotations', () => {
    expect(resourceAnnotations({ annotations: { audience: ['user'], priority: 0.9 } })).toEqual({ audience: ['user'], priority: '0.9 (high)' });
  });
});

describe('logs', () => {
  const logs: LogEvent[] = [
    { server: 's', level: 'debug', logger: 'demo', data: 'starting', timeUs: 1, historyId: 7 },
    { server: 's', level: 'error', logger: 'db', data: { msg: 'boom' }, timeUs: 2, historyId: null },
  ];
  it('orders and colours levels', () => {
    expect(levelRank('warning')).toBeGreaterThan(levelRank('info'));
    expect(levelColor('error')).toBe('red');
    expect(levelColor('debug')).toBe('gray');
  });
  it('filters by text, level and causing request', () => {
    const all = new Set(['debug', 'error']);
    expect(filterLogs(logs, { text: 'boom', levels: all, historyId: null }).length).toBe(1);
    expect(filterLogs(logs, { text: '', levels: new Set(['error']), historyId: null })[0].logger).toBe('db');
    expect(filterLogs(logs, { text: '', levels: all, historyId: 7 })[0].data).toBe('starting');
    expect(exportLogs(logs).split('\n').length).toBe(3);
  });
});

describe('history', () => {
  it('names targets and replay screens', () => {
    expect(historyTarget({ method: 'tools/call', params: { name: 'echo' } })).toBe('echo');
    expect(historyTarget({ method: 'resources/read', params: { uri: 'demo://x' } })).toBe('demo://x');
    expect(replayTab('prompts/get')).toBe('prompts');
    expect(replayTab('ping')).toBeNull();
    expect(replayArgs({ method: 'tools/call', params: { name: 'add', arguments: { a: 1 } } })).toEqual({ name: 'add', args: { a: 1 }, meta: undefined });
    expect(offsetLabel(45.2)).toBe('+45ms');
  });
  it('upserts entries newest first', () => {
    const e = (id: number, status: 'ok' | 'pending'): HistoryEntry => ({
      id, server: 's', method: 'ping', params: null, status, result: null, error: null, startedAt: '', startedAtUs: 0,
      durationMs: null, pinned: false, label: null, era: null, parentId: null, requestId: null, truncated: false, resultSize: 0,
    });
    let list = upsertEntry([], e(1, 'ok'));
    list = upsertEntry(list, e(2, 'pending'));
    list = upsertEntry(list, e(2, 'ok'));
    expect(list.map((x) => [x.id, x.status])).toEqual([[2, 'ok'], [1, 'ok']]);
  });
  it('folds a run of completions typed key by key into one line', async () => {
    const { foldCompletions } = await import('./history');
    const e = (id: number, method: string, params: HistoryEntry['params'] = null): HistoryEntry => ({
      id, server: 's', method, params, status: 'ok', result: null, error: null, startedAt: '', startedAtUs: 0,
      durationMs: null, pinned: false, label: null, era: null, parentId: null, requestId: null, truncated: false, resultSize: 0,
    });
    const typed = (id: number, arg: string, value: string) => e(id, 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: arg, value } });
    // Newest first: "pyt" typed into `language`, then a call, then "ab" into `other`.
    const lines = foldCompletions([typed(7, 'language', 'pyt'), typed(6, 'language', 'py'), typed(5, 'language', 'p'), e(4, 'tools/call'), typed(3, 'other', 'ab'), typed(2, 'other', 'a')]);
    expect(lines.map((l) => [l.entry.id, l.folded])).toEqual([[7, 2], [4, 0], [3, 1]]);
  });
});

describe('history children', () => {
  it('summarises what a request caused', async () => {
    const { childSummary } = await import('./history');
    expect(childSummary({ kind: 'progress', data: { progress: 2, total: 5, message: 'step 2 of 5' } })).toEqual({ label: 'progress', detail: '2/5 step 2 of 5' });
    expect(childSummary({ kind: 'log', data: { level: 'info', logger: 'demo', data: 'hi' } })).toEqual({ label: 'log [info]', detail: 'demo: hi' });
    expect(childSummary({ kind: 'serverRequest', data: { method: 'sampling/createMessage', answer: { error: { code: -32601, message: 'declined by the web UI' } } } }).detail).toBe('declined: declined by the web UI');
  });
});
