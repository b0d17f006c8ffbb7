// The Sampling Request model: the answer's CreateMessageResult, media only from data: URLs, every
// part of the request read, hostile input cut.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, blockOf, cut, mediaSrc, samplingResult, samplingView } from './sampling';

describe('samplingResult', () => {
  it('is the CreateMessageResult the CLI sends, with the dialog defaults', () => {
    expect(samplingResult({ text: 'Hi <b>there</b>', model: 'mcpscope-manual', stopReason: 'endTurn' })).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'Hi <b>there</b>' },
      model: 'mcpscope-manual',
      stopReason: 'endTurn',
    });
  });
  it('keeps the required model and leaves an empty stop reason out', () => {
    const r = samplingResult({ text: '', model: '  ', stopReason: '' });
    expect(r.model).toBe(DEFAULT_MODEL);
    expect('stopReason' in r).toBe(false);
    expect(r.content).toEqual({ type: 'text', text: '' });
  });
});

describe('media', () => {
  it('builds data: URLs from base64 data of the right type only', () => {
    expect(mediaSrc('image/', 'image/png', 'iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(mediaSrc('audio/', 'audio/wav', 'UklG\nRg==')).toBe('data:audio/wav;base64,UklGRg==');
    expect(mediaSrc('image/', 'audio/wav', 'UklGRg==')).toBeNull();
    expect(mediaSrc('image/', 'image/png', 'javascript:alert(1)')).toBeNull();
    expect(mediaSrc('image/', 'image/png";onerror="x', 'AAAA')).toBeNull();
    expect(mediaSrc('image/', 'image/png', '')).toBeNull();
  });
  it('never uses a URL the server gives: it is shown as JSON', () => {
    for (const url of ['javascript:alert(1)', 'http://example.com/x.png']) {
      const b = blockOf({ type: 'image', mimeType: 'image/png', url, uri: url, data: url });
      expect(b.kind).toBe('image');
      if (b.kind !== 'image') return;
      expect(b.src).toBeNull();
      expect(b.json).toContain(url);
    }
  });
  it('a good image is drawn, its base64 left out of the JSON', () => {
    const b = blockOf({ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' });
    expect(b).toMatchObject({ kind: 'image', src: 'data:image/png;base64,iVBORw0KGgo=' });
    if (b.kind === 'image') expect(b.json).not.toContain('iVBOR');
  });
});

describe('samplingView', () => {
  it('reads every part of the request', () => {
    const v = samplingView({
      messages: [
        { role: 'user', content: { type: 'text', text: 'hello' } },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }, { type: 'text', text: 'ok' }] },
      ],
      modelPreferences: { hints: [{ name: 'claude' }], speedPriority: 0.5 },
      systemPrompt: 'be brief',
      maxTokens: 200,
      stopSequences: ['STOP'],
      temperature: 0.2,
      includeContext: 'thisServer',
      tools: [{ name: 'x', inputSchema: { type: 'object' } }],
      toolChoice: { mode: 'auto' },
    });
    expect(v.messages).toHaveLength(2);
    expect(v.messages[0]).toEqual({ role: 'user', blocks: [{ kind: 'text', text: 'hello' }] });
    expect(v.messages[1].blocks.map((b) => b.kind)).toEqual(['json', 'text']);
    expect(v.modelPreferences).toContain('speedPriority');
    expect(v).toMatchObject({ systemPrompt: 'be brief', maxTokens: 200, stopSequences: ['STOP'], temperature: 0.2, includeContext: 'thisServer' });
    expect(v.tools).toContain('inputSchema');
    expect(v.toolChoice).toContain('auto');
  });
  it('leaves out what is not there and survives a payload that is not an object', () => {
    expect(samplingView('nope')).toMatchObject({ messages: [], systemPrompt: null, maxTokens: null, tools: null, stopSequences: [] });
  });
  it('cuts a 5 MB text quickly', () => {
    const big = 'x'.repeat(5_000_000);
    const t0 = Date.now();
    const v = samplingView({ messages: [{ role: 'user', content: { type: 'text', text: big } }], systemPrompt: big });
    expect(Date.now() - t0).toBeLessThan(500);
    const b = v.messages[0].blocks[0];
    expect(b.kind === 'text' && b.text.length).toBeLessThan(21_000);
    expect(v.systemPrompt).toContain('5,000,000 characters in all');
    expect(cut('short', 10)).toBe('short');
  });
});
