// Sampling answered by hand in the browser (issue 9): the demo server's `sample` tool asks the
// client's model — a legacy `sampling/createMessage` and a 2026-07-28 `input_required` round —
// and 003's Sampling Request card under the running call answers with the text typed in
// "Response" (the tool returns it), or rejects it. A hostile stdio server sends HTML in every
// string, a 5 MB text and images whose only "URL" is javascript: or http:, which must not load.
import type { Page } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, expect, field, openUi, selectTool, shot, tab, test, era } from '../fixtures';

/** Run `sample` with `prompt` and return the inline card of its question. */
async function sample(page: Page, prompt: string) {
  await selectTool(page, 'sample');
  await field(page, '/prompt').locator('input, textarea').first().fill(prompt);
  await page.getByTestId('execute').click();
  const card = page.getByTestId('request-queue-slot').getByTestId('interaction');
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute('data-kind', 'sampling');
  return card;
}

for (const [version, title, origin] of [
  ['2025-11-25', 'Sampling Request', /^server request \d+$/],
  ['2026-07-28', 'Sampling Request', /input_required round 1 of tools\/call/],
] as const) {
  test(`sampling answered by hand, ${version}: the text comes back in the tool result`, async ({ page, backend }) => {
    await openUi(page, backend);
    await connect(page, 'demo');
    await era(page, version);
    const card = await sample(page, 'Write a haiku about <b>inspectors</b>');
    await expect(card.getByTestId('interaction-title')).toHaveText(title);
    await expect(card.getByTestId('interaction-request-id')).toHaveText(origin);
    await expect(card.getByTestId('sampling-message')).toHaveCount(1);
    await expect(card.getByTestId('sampling-message')).toHaveAttribute('data-role', 'user');
    await expect(card.getByTestId('sampling-text')).toHaveText('Write a haiku about <b>inspectors</b>');
    await expect(card.getByTestId('sampling-max-tokens')).toContainText('200');
    await expect(card.getByLabel('Model')).toHaveValue('mcpscope-manual');
    await expect(card.getByLabel('Stop reason')).toHaveValue('endTurn');
    await card.getByLabel('Response').fill(`Quiet frames arrive (${version})`);
    if (version === '2025-11-25') await shot(page, 'sampling');
    await expect(page.getByTestId('executing')).toBeVisible();
    await card.getByTestId('sampling-send').click();
    const r = page.getByTestId('tool-result');
    await expect(r).toHaveAttribute('data-outcome', 'ok');
    await expect(r).toContainText(`Quiet frames arrive (${version})`);
    await expect(page.getByTestId('pending-requests')).toHaveCount(0);
    await expect(page.getByTestId('pending-badge')).toHaveCount(0);
  });
}

test('sampling rejected, legacy: the server gets the decline, the tool says so', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2025-11-25');
  const card = await sample(page, 'say no');
  await card.getByTestId('sampling-reject').click();
  const r = page.getByTestId('tool-result');
  await expect(r).toContainText("the client's answer was an error");
  await expect(page.getByTestId('pending-requests')).toHaveCount(0);
});

test('sampling, 2026-07-28, not on screen: the modal answers it', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2026-07-28');
  await sample(page, 'from the modal');
  // Leave the Tools screen: the question moves into the modal.
  await tab(page, 'resources');
  const modal = page.getByTestId('pending-modal-body');
  await expect(modal.getByTestId('interaction-title')).toHaveText('Sampling Request');
  await expect(modal.getByTestId('sampling-text')).toHaveText('from the modal');
  await modal.getByLabel('Response').fill('answered in the modal');
  await modal.getByLabel('Model').fill('my-model');
  await modal.getByTestId('sampling-send').click();
  await expect(page.getByTestId('pending-badge')).toHaveCount(0);
  await tab(page, 'tools');
  const r = page.getByTestId('tool-result');
  await expect(r).toHaveAttribute('data-outcome', 'ok');
  await expect(r).toContainText('answered in the modal');
});

// A legacy stdio server whose one tool asks a hostile sampling/createMessage: HTML in every
// string, a 5 MB text, images whose data is a javascript: or http: URL (and a url field), a good
// tiny PNG. It answers the call with what the client sent back.
const HOSTILE = String.raw`
const html = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const calls = new Map();
let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: html, version: '1' } } });
    else if (m.method === 'tools/list') out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'hostile-sample', inputSchema: { type: 'object' } }] } });
    else if (m.method === 'tools/call') {
      const ask = 'ask-' + m.id;
      calls.set(ask, m.id);
      out({ jsonrpc: '2.0', id: ask, method: 'sampling/createMessage', params: {
        messages: [
          { role: 'user', content: { type: 'text', text: html } },
          { role: html, content: { type: 'text', text: 'B'.repeat(5 * 1024 * 1024) } },
          { role: 'user', content: { type: 'image', mimeType: 'image/png', data: 'javascript:window.__pwned=1', url: 'javascript:window.__pwned=1' } },
          { role: 'user', content: { type: 'image', mimeType: 'image/png', data: 'http://127.0.0.1:9/evil.png', uri: 'http://127.0.0.1:9/evil.png' } },
          { role: 'user', content: { type: 'audio', mimeType: 'text/html', data: 'PHNjcmlwdD4=' } },
          { role: 'user', content: { type: 'image', mimeType: 'image/png', data: png } },
          { role: 'user', content: { type: html, text: html } },
        ],
        systemPrompt: html, maxTokens: 10, stopSequences: [html], temperature: 0.5, includeContext: html,
        modelPreferences: { hints: [{ name: html }] },
        tools: [{ name: html, description: html, inputSchema: { type: 'object' } }],
      } });
    } else if (m.id !== undefined && calls.has(m.id)) {
      out({ jsonrpc: '2.0', id: calls.get(m.id), result: { content: [{ type: 'text', text: 'answer: ' + JSON.stringify(m.result ?? m.error) }] } });
    } else if (m.id !== undefined && m.method) out({ jsonrpc: '2.0', id: m.id, result: {} });
  }
});
`;

test('hostile sampling: HTML as text, a 5 MB text cut, javascript:/http: images never load', async ({ page, backend }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpscope-hostile-sampling-'));
  const script = path.join(dir, 'hostile.js');
  writeFileSync(script, HOSTILE);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const fetched: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('evil') || r.url().endsWith('/x')) fetched.push(r.url());
  });
  await openUi(page, backend);
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { hostile: { command: process.execPath, args: [script], protocolEra: 'legacy' } } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText('hostile');
  await page.keyboard.press('Escape');
  await connect(page, 'hostile');

  await selectTool(page, 'hostile-sample');
  await page.getByTestId('execute').click();
  const card = page.getByTestId('request-queue-slot').getByTestId('interaction');
  await expect(card).toHaveAttribute('data-kind', 'sampling');
  await expect(card.getByTestId('sampling-message')).toHaveCount(7);
  await expect(card.getByTestId('sampling-text').first()).toHaveText('<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>');
  await expect(card.getByTestId('sampling-system-prompt')).toContainText('<script>');
  await expect(card.getByTestId('sampling-tools')).toContainText('<script>');
  await expect(card.getByTestId('sampling-model-preferences')).toContainText('<img src=x');
  // The 5 MB text is cut, and says how long it was.
  const big = card.getByTestId('sampling-text').nth(1);
  await expect(big).toContainText('characters in all');
  expect((await big.innerText()).length).toBeLessThan(25_000);
  // Only the good PNG is an <img>, from a data: URL; the others are JSON text.
  const imgs = card.locator('img');
  await expect(imgs).toHaveCount(1);
  expect(await imgs.first().getAttribute('src')).toMatch(/^data:image\/png;base64,/);
  await expect(card.locator('audio')).toHaveCount(0);
  await expect(card.getByTestId('sampling-json')).toHaveCount(4);
  await expect(card.getByTestId('sampling-json').first()).toContainText('javascript:window.__pwned=1');
  await card.getByTestId('sampling-reject').click();
  await expect(page.getByTestId('tool-result')).toContainText('answer: {"code"');

  expect(fetched).toEqual([]);
  expect(dialogs).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
});
