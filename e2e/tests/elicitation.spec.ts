// Elicitation answered in the browser (issue 9): the demo server's `elicit-form` (every field type
// the elicitation schema allows) and `elicit-url`, in both eras — a legacy `elicitation/create`
// ("Elicitation Request") and a 2026-07-28 `input_required` round ("Operation Needs Input") —
// inline under the running call and as a modal when the call is not on screen; accept after a
// validation error, decline, cancel, URL mode; server-everything's elicitation tool; and a
// hostile server whose schemas must render as text or the JSON fallback, never as script.
import type { Page } from '@playwright/test';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO, connect, expect, openUi, selectTool, shot, tab, test, era } from '../fixtures';

/** Run a tool of the demo and return the inline card of the question it asks. */
async function ask(page: Page, tool: string) {
  await selectTool(page, tool);
  await page.getByTestId('execute').click();
  const card = page.getByTestId('request-queue-slot').getByTestId('interaction');
  await expect(card).toBeVisible();
  return card;
}

async function result(page: Page) {
  const r = page.getByTestId('tool-result');
  await expect(r).toHaveAttribute('data-outcome', 'ok');
  return r;
}

test('elicitation form, legacy: every field type, a validation error first, then accept', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2025-11-25');
  const card = await ask(page, 'elicit-form');

  // 000's dialog: title, header with the server, the request id, the time it waits.
  await expect(page.getByTestId('pending-requests-title')).toHaveText('[!] Pending Client Requests (1)');
  await expect(card.getByTestId('interaction-title')).toHaveText('Elicitation Request');
  await expect(card.getByTestId('interaction-header')).toHaveText('demo is requesting information');
  await expect(card.getByTestId('interaction-request-id')).toHaveText(/^server request \d+$/);
  await expect(card.getByTestId('interaction-time-left')).toContainText('waits 5 min');
  await expect(card.getByTestId('interaction-message')).toContainText('Please fill in the demo form');
  await expect(page.getByTestId('pending-badge')).toHaveAttribute('data-count', '1');

  // Labels are the schema titles (real <label for>), the raw key beside; defaults pre-filled.
  await expect(card.getByLabel('Full name')).toHaveValue('Ada Lovelace');
  await expect(card.locator('[data-testid=elicit-field][data-key=name] [data-testid=elicit-key]')).toHaveText('name');
  await expect(card.getByLabel('Rating')).toHaveValue('4.5');
  await expect(card.getByLabel('Guests')).toHaveValue('2');
  await expect(card.getByLabel('Subscribe to news')).toBeChecked();
  await expect(card.getByLabel('T-shirt size')).toHaveValue('1');
  await expect(card.getByLabel('Plan')).toHaveValue('1');
  await expect(card.getByLabel('cheese')).toBeChecked();
  await expect(card.getByLabel('Rust')).toBeChecked();
  // Formats are the matching input types.
  await expect(card.getByLabel('Email')).toHaveAttribute('type', 'email');
  await expect(card.getByLabel('Homepage')).toHaveAttribute('type', 'url');
  await expect(card.getByLabel('Birthday')).toHaveAttribute('type', 'date');
  await expect(card.getByLabel('Meeting time')).toHaveAttribute('type', 'datetime-local');

  // Accept checks first: the required email is missing, a bad guest count, nothing is sent.
  await card.getByLabel('Guests').fill('11');
  await card.getByLabel('Full name').fill('A');
  await card.getByTestId('elicit-accept').click();
  await expect(card.getByTestId('elicit-form')).toHaveAttribute('data-valid', 'false');
  await expect(card.locator('[data-testid=elicit-field][data-key=email]')).toContainText('required');
  await expect(card.locator('[data-testid=elicit-field][data-key=guests]')).toContainText('must be ≤ 10');
  await expect(card.locator('[data-testid=elicit-field][data-key=name]')).toContainText('at least 2 characters');
  await card.getByLabel('Email').fill('not-an-email');
  await card.getByTestId('elicit-accept').click();
  await expect(card.locator('[data-testid=elicit-field][data-key=email]')).toContainText('must be an email address');
  await expect(page.getByTestId('executing')).toBeVisible();
  await expect(page.getByTestId('tool-result')).toHaveCount(0);
  await card.getByLabel('Full name').scrollIntoViewIfNeeded();
  await shot(page, 'elicitation-form-errors');

  // Fill every field and accept.
  await card.getByLabel('Full name').fill('Grace Hopper');
  await card.getByLabel('Email').fill('grace@example.org');
  await card.getByLabel('Homepage').fill('https://example.org/grace');
  await card.getByLabel('Birthday').fill('1906-12-09');
  await card.getByLabel('Meeting time').fill('2026-12-01T09:30');
  await card.getByLabel('Rating').fill('3.5');
  await card.getByLabel('Guests').fill('4');
  await card.getByLabel('Subscribe to news').uncheck();
  await card.getByLabel('T-shirt size').selectOption({ label: 'XL' });
  await card.getByLabel('Plan').selectOption({ label: 'Team' });
  await card.getByLabel('olives').check();
  await card.getByLabel('Python').check();
  await card.getByLabel('Favourite colour').selectOption({ label: 'Green' });
  await expect(card.locator('[data-invalid=true]')).toHaveCount(0);
  await shot(page, 'elicitation-form');
  await card.getByTestId('elicit-accept').click();

  const r = await result(page);
  await expect(r).toContainText('action: accept');
  const sent = {
    name: 'Grace Hopper',
    email: 'grace@example.org',
    homepage: 'https://example.org/grace',
    birthday: '1906-12-09',
    meetingAt: '2026-12-01T09:30:00Z',
    rating: 3.5,
    guests: 4,
    subscribe: false,
    size: 'XL',
    plan: 'team',
    toppings: ['cheese', 'olives'],
    languages: ['rust', 'py'],
    colour: '#00ff00',
  };
  await expect(r).toContainText(`content: ${JSON.stringify(sent)}`);
  await expect(page.getByTestId('pending-requests')).toHaveCount(0);
  await expect(page.getByTestId('pending-badge')).toHaveCount(0);
});

test('elicitation, 2026-07-28: an input_required round declined, then one cancelled', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2026-07-28');
  let card = await ask(page, 'elicit-form');
  await expect(card.getByTestId('interaction-title')).toHaveText('Operation Needs Input');
  await expect(card.getByTestId('interaction-header')).toHaveText('demo needs input to continue');
  await expect(card).toHaveAttribute('data-round', '1');
  await expect(card.getByTestId('interaction-request-id')).toContainText('input_required round 1 of tools/call');
  await shot(page, 'elicitation-input-required');
  // Decline needs no valid form: the required email is still empty.
  await card.getByTestId('elicit-decline').click();
  await expect(await result(page)).toContainText('action: decline');

  card = await ask(page, 'elicit-form');
  await card.getByTestId('elicit-cancel').click();
  await expect(await result(page)).toContainText('action: cancel');
  await expect(page.getByTestId('pending-badge')).toHaveCount(0);

  // Cancel Tool while the round waits: the call ends, and so does its question (no modal).
  await ask(page, 'elicit-form');
  await page.getByTestId('cancel').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'cancelled');
  await expect(page.getByTestId('pending-badge')).toHaveCount(0);
  await expect(page.getByTestId('pending-modal-body')).toHaveCount(0);
});

test('elicitation, legacy, not on screen: the modal answers it; the badge counts it', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2025-11-25');
  await ask(page, 'elicit-form');
  // Leave the Tools screen: the question moves into the modal.
  await tab(page, 'resources');
  const modal = page.getByTestId('pending-modal-body');
  await expect(modal.getByTestId('interaction-title')).toHaveText('Elicitation Request');
  await expect(page.getByTestId('pending-badge')).toHaveText('1 pending');
  await shot(page, 'elicitation-modal');
  // Closing only hides it; the badge brings it back.
  await page.keyboard.press('Escape');
  await expect(modal).toHaveCount(0);
  await page.getByTestId('pending-badge').click();
  await expect(modal.getByTestId('interaction')).toBeVisible();
  await modal.getByTestId('elicit-cancel').click();
  await expect(page.getByTestId('pending-badge')).toHaveCount(0);
  await tab(page, 'tools');
  await expect(await result(page)).toContainText('action: cancel');

  // Cancel Tool while the server's request is open: the call is cancelled and the server's
  // request answered (elicitation cancel), so nothing is left waiting.
  await ask(page, 'elicit-form');
  await page.getByTestId('cancel').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'cancelled');
  await expect(page.getByTestId('pending-badge')).toHaveCount(0);
  await expect(page.getByTestId('pending-modal-body')).toHaveCount(0);
});

test('elicitation, URL mode in both eras: the domain, Copy URL, Open in Browser, the wait', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2025-11-25');
  let card = await ask(page, 'elicit-url');
  await expect(card).toHaveAttribute('data-kind', 'elicitationUrl');
  await expect(card.getByTestId('elicit-url')).toHaveText('https://example.com/demo-consent');
  await expect(card.getByTestId('elicit-url-domain')).toHaveText('example.com');
  await expect(card.getByTestId('elicit-id')).toContainText(/demo-consent-\d+/);
  await expect(card.getByTestId('elicit-status')).toHaveAttribute('data-status', 'asking');
  await expect(card.getByTestId('elicit-copy-url')).toBeVisible();
  const open = card.getByTestId('elicit-open');
  await expect(open).toHaveAttribute('href', 'https://example.com/demo-consent');
  await expect(open).toHaveAttribute('target', '_blank');
  await expect(open).toHaveAttribute('rel', 'noopener noreferrer');
  await shot(page, 'elicitation-url');
  // Opening is the consent: accept. The page itself stays where it is.
  const here = page.url();
  const popup = page.waitForEvent('popup');
  await open.click();
  await (await popup).close();
  expect(page.url()).toBe(here);
  await expect(await result(page)).toContainText('action: accept (consent to open https://example.com/demo-consent)');
  // The server finishes out of band: the wait for notifications/elicitation/complete.
  const wait = page.getByTestId('elicit-url-wait');
  await expect(wait).toHaveAttribute('data-completed', 'false');
  await expect(wait.getByTestId('elicit-status')).toHaveAttribute('data-status', 'waiting');
  await shot(page, 'elicitation-url-wait');
  await wait.getByTestId('elicit-wait-dismiss').click();
  await expect(wait).toHaveCount(0);

  // 2026-07-28: no elicitation id; declined.
  await era(page, '2026-07-28');
  card = await ask(page, 'elicit-url');
  await expect(card.getByTestId('interaction-title')).toHaveText('Operation Needs Input');
  await expect(card.getByTestId('elicit-id')).toContainText('none');
  await card.getByTestId('elicit-decline').click();
  await expect(await result(page)).toContainText('action: decline');
});

const EVERYTHING = path.join(REPO, 'testenv/peers/everything.sh');

test('server-everything: its elicitation tool answered in the dialog', async ({ page, backend }) => {
  test.skip(!existsSync(path.join(REPO, '.peers')), 'the peers are not installed (bash testenv/install.sh)');
  await openUi(page, backend);
  await importServer(page, 'everything', { command: 'bash', args: [EVERYTHING, 'stdio'], protocolEra: 'legacy' });
  await connect(page, 'everything');
  const card = await ask(page, 'trigger-elicitation-request');
  await expect(card.getByTestId('interaction-header')).toHaveText('everything is requesting information');
  await expect(card.getByLabel('String with default')).toHaveValue('It was a dark and stormy night.');
  await expect(card.getByLabel('Legacy Titled Single Select Enum')).toHaveValue('0');
  await card.getByTestId('elicit-accept').click();
  await expect(card.locator('[data-testid=elicit-field][data-key=name]')).toContainText('required');
  await card.getByLabel('String', { exact: true }).fill('Ada');
  await card.getByLabel('Integer', { exact: true }).fill('7');
  await card.getByLabel('Salmon').check();
  await card.getByLabel('Titled Single Select Enum', { exact: true }).selectOption({ label: 'Wonder Woman' });
  await shot(page, 'elicitation-everything');
  await card.getByTestId('elicit-accept').click();
  const r = await result(page);
  await expect(r).toContainText('User provided the requested information');
  await expect(r).toContainText('- Name: Ada');
  await expect(r).toContainText('- Favorite Integer: 7');
  await expect(r).toContainText('"titledSingleSelectEnum": "hero-3"');
  await expect(r).toContainText('"fish-1"');
  await expect(r).toContainText('"fish-2"');
});

async function importServer(page: Page, name: string, entry: object) {
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { [name]: entry } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText(name);
  await page.keyboard.press('Escape');
}

// A legacy stdio server whose tools each ask one hostile elicitation: a 10,000-character title,
// 500 properties, HTML in every string, a schema that is not an object. It answers the call with
// what the client sent back.
const HOSTILE = String.raw`
const html = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';
const schemas = {
  'long-title': { type: 'object', properties: { a: { type: 'string', title: 'T'.repeat(10000) } } },
  'many-fields': { type: 'object', properties: Object.fromEntries(Array.from({ length: 500 }, (_, i) => ['p' + i, { type: 'string' }])) },
  'html': { type: 'object', properties: { [html]: { type: 'string', title: html, description: html, default: html, enum: [html, 'b'] } } },
  'not-object': 'this schema is a string',
};
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
    else if (m.method === 'tools/list') out({ jsonrpc: '2.0', id: m.id, result: { tools: Object.keys(schemas).map((name) => ({ name, inputSchema: { type: 'object' } })) } });
    else if (m.method === 'tools/call') {
      const ask = 'ask-' + m.id;
      calls.set(ask, m.id);
      out({ jsonrpc: '2.0', id: ask, method: 'elicitation/create', params: { message: html + ' ' + 'M'.repeat(10000), requestedSchema: schemas[m.params.name] } });
    } else if (m.id !== undefined && calls.has(m.id)) {
      out({ jsonrpc: '2.0', id: calls.get(m.id), result: { content: [{ type: 'text', text: 'answer: ' + JSON.stringify(m.result ?? m.error) }] } });
    } else if (m.id !== undefined && m.method) out({ jsonrpc: '2.0', id: m.id, result: {} });
  }
});
`;

test('hostile schemas render as text or the JSON fallback, never run script, never stall', async ({ page, backend }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpscope-hostile-'));
  const script = path.join(dir, 'hostile.js');
  writeFileSync(script, HOSTILE);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await openUi(page, backend);
  await importServer(page, 'hostile', { command: process.execPath, args: [script], protocolEra: 'legacy' });
  await connect(page, 'hostile');

  // A 10,000-character title: cut, in a label that still names the input.
  let card = await ask(page, 'long-title');
  const label = card.locator('label.mcpscope-elicit-title');
  await expect(label).toContainText('T'.repeat(200) + '…');
  expect((await label.innerText()).length).toBeLessThan(300);
  await card.getByLabel('T'.repeat(50)).fill('ok');
  await card.getByTestId('elicit-accept').click();
  await expect(await result(page)).toContainText('answer: {"action":"accept","content":{"a":"ok"}}');

  // 500 properties: answered as JSON.
  card = await ask(page, 'many-fields');
  await expect(card.getByTestId('elicit-fallback')).toContainText('500 fields are too many for a form');
  await card.getByTestId('elicit-json').fill('{"p0": "x"}');
  await card.getByTestId('elicit-accept').click();
  await expect(await result(page)).toContainText('answer: {"action":"accept","content":{"p0":"x"}}');

  // HTML in every string is shown as text.
  card = await ask(page, 'html');
  await expect(card.getByTestId('interaction-message')).toContainText('<script>window.__pwned=1</script>');
  await expect(card.getByTestId('interaction-identity')).toContainText('<img src=x');
  await expect(card.locator('[data-testid=elicit-field] [data-testid=elicit-key]')).toContainText('<img src=x');
  await expect(card.locator('img[src=x]')).toHaveCount(0);
  await shot(page, 'elicitation-hostile');
  await card.getByTestId('elicit-decline').click();
  await expect(await result(page)).toContainText('answer: {"action":"decline"}');

  // A schema that is not an object: the JSON fallback says why.
  card = await ask(page, 'not-object');
  await expect(card.getByTestId('elicit-fallback')).toContainText('not an object');
  await card.getByTestId('elicit-json').fill('[1]');
  await card.getByTestId('elicit-accept').click();
  await expect(card.getByTestId('elicit-json')).toHaveAttribute('data-valid', 'true');
  await expect(card).toContainText('the content must be a JSON object');
  await card.getByTestId('elicit-cancel').click();
  await expect(await result(page)).toContainText('answer: {"action":"cancel"}');

  expect(dialogs).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
});
