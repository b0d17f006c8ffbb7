// Sampling answered by a Testing Profile (issue 9): a profile made in the editor (Server Info →
// Edit profiles…), chosen for the demo server with Auto-respond and "Answer without stopping",
// answers the `sample` tool by itself in both eras (no card; the tool result is the profile's
// text); with "without stopping" off the card opens pre-filled, so Send Response is one click;
// a tool-use profile answers a stdio server's sampling-with-tools request with a tool_use block.
import type { Page } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, era, expect, field, openUi, selectTool, shot, test } from '../fixtures';

const MOCK = 'This is a mock LLM response for testing purposes.';

/** Server Info of the connected server. */
async function serverInfo(page: Page) {
  await page.getByTestId('server-menu').click();
  await page.getByTestId('menu-server-info').click();
  const choice = page.getByTestId('server-info-panel').getByTestId('server-profile');
  await expect(choice).toBeVisible();
  return choice;
}

/** Make a profile in the editor opened from `from` (its "Edit profiles…" button). */
async function makeProfile(page: Page, from: ReturnType<Page['getByTestId']>, p: { name: string; kind: string; text?: string; tool?: string; input?: string; model?: string }) {
  await from.getByTestId('profiles-edit').click();
  const editor = page.getByTestId('profiles-editor');
  await editor.getByTestId('profile-new').click();
  await editor.getByLabel('Name').fill(p.name);
  await editor.getByTestId('profile-kind').selectOption(p.kind);
  if (p.text !== undefined) await editor.getByLabel('Response text').fill(p.text);
  if (p.tool !== undefined) await editor.getByLabel('Tool').fill(p.tool);
  if (p.input !== undefined) await editor.getByLabel('Input (JSON object)').fill(p.input);
  if (p.model !== undefined) await editor.getByLabel('Model').fill(p.model);
  await editor.getByTestId('profile-save').click();
  await expect(editor.locator(`[data-testid=profile-row][data-name="${p.name}"]`)).toBeVisible();
  return editor;
}

/** Close the profiles editor (Escape would close Server Info beneath it too). */
async function done(page: Page) {
  await page.getByTestId('profiles-done').click();
  await expect(page.getByTestId('profiles-editor')).toHaveCount(0);
}

/** Choose `name` with the two switches in `choice` (each saved at once). */
async function choose(choice: ReturnType<Page['getByTestId']>, name: string, withoutStopping: boolean) {
  await choice.getByTestId('server-profile-select').selectOption(name);
  await expect(choice).toHaveAttribute('data-profile', name);
  const auto = choice.getByTestId('server-profile-auto');
  if ((await auto.getAttribute('data-checked')) !== 'true') await auto.locator('label').first().click();
  await expect(auto).toHaveAttribute('data-checked', 'true');
  const going = choice.getByTestId('server-profile-without-stopping');
  if ((await going.getAttribute('data-checked')) !== String(withoutStopping)) await going.locator('label').first().click();
  await expect(going).toHaveAttribute('data-checked', String(withoutStopping));
}

async function runSample(page: Page, prompt: string) {
  await selectTool(page, 'sample');
  await field(page, '/prompt').locator('input, textarea').first().fill(prompt);
  await page.getByTestId('execute').click();
}

for (const version of ['2025-11-25', '2026-07-28'] as const) {
  test(`sampling answered by a Testing Profile without stopping, ${version}`, async ({ page, backend }) => {
    await openUi(page, backend);
    await connect(page, 'demo');
    await era(page, version);
    const choice = await serverInfo(page);
    await makeProfile(page, choice, { name: 'Quick Mock', kind: 'fixed', text: MOCK, model: 'mock-llm' });
    if (version === '2025-11-25') await shot(page, 'profiles-editor');
    await done(page);
    await choose(choice, 'Quick Mock', true);
    await expect(choice.getByTestId('server-profile-summary')).toContainText('answers every sampling request by itself');
    await page.keyboard.press('Escape');
    await runSample(page, 'Capital of France?');
    const r = page.getByTestId('tool-result');
    await expect(r).toHaveAttribute('data-outcome', 'ok');
    await expect(r).toContainText(MOCK);
    // Nobody was asked: no card, no badge.
    await expect(page.getByTestId('pending-requests')).toHaveCount(0);
    await expect(page.getByTestId('pending-badge')).toHaveCount(0);
  });
}

test('a Testing Profile pre-fills the sampling card: Send Response is one click', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2025-11-25');
  const choice = await serverInfo(page);
  await makeProfile(page, choice, { name: 'Quick Mock', kind: 'fixed', text: MOCK, model: 'mock-llm' });
  await done(page);
  await choose(choice, 'Quick Mock', false);
  await page.keyboard.press('Escape');
  await runSample(page, 'Analyze this database schema');
  const card = page.getByTestId('request-queue-slot').getByTestId('interaction');
  await expect(card).toHaveAttribute('data-kind', 'sampling');
  await expect(card.getByTestId('profile-note')).toHaveText(/\[Testing Profile: Quick Mock\]/);
  await expect(card.getByLabel('Response')).toHaveValue(MOCK);
  await expect(card.getByLabel('Model', { exact: true })).toHaveValue('mock-llm');
  await expect(card.getByLabel('Stop reason')).toHaveValue('endTurn');
  await shot(page, 'profiles');
  await card.getByTestId('sampling-send').click();
  const r = page.getByTestId('tool-result');
  await expect(r).toHaveAttribute('data-outcome', 'ok');
  await expect(r).toContainText(MOCK);
});

test('the card switches to an echo profile and Auto-respond sends its answer', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2026-07-28');
  await runSample(page, 'echo <b>me</b> back');
  const card = page.getByTestId('request-queue-slot').getByTestId('interaction');
  const bar = card.getByTestId('profile-bar');
  await expect(bar.getByTestId('server-profile-summary')).toContainText('No Testing Profile');
  await makeProfile(page, bar, { name: 'Echo', kind: 'echo' });
  await done(page);
  // Chosen on the card, Auto-respond off: the card keeps waiting, the button answers.
  await bar.getByTestId('server-profile-select').selectOption('Echo');
  await expect(bar.getByTestId('profile-note')).toHaveText(/\[Testing Profile: Echo\]/);
  await expect(card.getByLabel('Response')).toHaveValue('');
  await bar.getByTestId('profile-auto-respond').click();
  const r = page.getByTestId('tool-result');
  await expect(r).toHaveAttribute('data-outcome', 'ok');
  await expect(r).toContainText('echo <b>me</b> back');
});

// A legacy stdio server whose tool asks sampling with tools (2025-11-25) and answers the call
// with what the client sent back.
const WITH_TOOLS = String.raw`
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
    if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'agent', version: '1' } } });
    else if (m.method === 'tools/list') out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'plan-trip', inputSchema: { type: 'object' } }] } });
    else if (m.method === 'tools/call') {
      const ask = 'ask-' + m.id;
      calls.set(ask, m.id);
      out({ jsonrpc: '2.0', id: ask, method: 'sampling/createMessage', params: {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the weather in Paris?' } }],
        maxTokens: 100,
        tools: [{ name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }],
        toolChoice: { mode: 'auto' },
      } });
    } else if (m.id !== undefined && calls.has(m.id)) {
      out({ jsonrpc: '2.0', id: calls.get(m.id), result: { content: [{ type: 'text', text: 'answer: ' + JSON.stringify(m.result ?? m.error) }] } });
    } else if (m.id !== undefined && m.method) out({ jsonrpc: '2.0', id: m.id, result: {} });
  }
});
`;

test('a tool-use profile answers sampling with tools with a tool_use block', async ({ page, backend }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpscope-sampling-tools-'));
  const script = path.join(dir, 'agent.js');
  writeFileSync(script, WITH_TOOLS);
  await openUi(page, backend);
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { agent: { command: process.execPath, args: [script], protocolEra: 'legacy' } } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText('agent');
  await page.keyboard.press('Escape');
  await connect(page, 'agent');
  const choice = await serverInfo(page);
  await makeProfile(page, choice, { name: 'Weather tool', kind: 'toolUse', tool: '', input: '{"city": "Paris"}' });
  await done(page);
  await choose(choice, 'Weather tool', true);
  await page.keyboard.press('Escape');
  await selectTool(page, 'plan-trip');
  await page.getByTestId('execute').click();
  const r = page.getByTestId('tool-result');
  await expect(r).toHaveAttribute('data-outcome', 'ok');
  await expect(r).toContainText('"type":"tool_use"');
  await expect(r).toContainText('"name":"get_weather"');
  await expect(r).toContainText('"input":{"city":"Paris"}');
  await expect(r).toContainText('"stopReason":"toolUse"');
});
