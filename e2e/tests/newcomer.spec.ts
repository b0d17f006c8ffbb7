// What a newcomer hit in the web UI (issue 24 item 21), clicked in their order: the server list
// (a labelled connect toggle, a bad URL said on its field, a dead server's stderr cause on its
// card, a favicon), then server-everything in the Auto era at 1280 and 1024 px (the top bar fits,
// a legacy server is not a warning, a form value that does not parse survives Form → JSON, a
// waiting call says it waits on the user, the server's requests are the call's, completions typed
// key by key are one History line, pins on top and History's columns aligned, Traffic opened late
// shows its newest frames) with no console error on the way (a tool error and a cancel included)
// and no 409 from the apps list.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { REPO, expect, field, openUi, selectTool, shot, tab, test } from '../fixtures';

const EVERYTHING = path.join(REPO, 'testenv/peers/everything.sh');
const PEERS = path.join(REPO, '.peers');

async function importServer(page: Page, name: string, entry: object) {
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { [name]: entry } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText(name);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
}

/** Every console error and uncaught exception of the page, from now on. */
function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

/** The text of every notification shown from now on (a toast may come and go before a check). */
async function recordToasts(page: Page) {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __toasts: string[] }).__toasts = seen;
    new MutationObserver(() => {
      for (const n of document.querySelectorAll('.mantine-Notification-root')) {
        const t = n.textContent ?? '';
        if (!seen.includes(t)) seen.push(t);
      }
    }).observe(document, { childList: true, subtree: true });
  });
  return () => page.evaluate(() => (window as unknown as { __toasts: string[] }).__toasts);
}

/** Every tab of the top bar is whole on screen, none under the right-hand controls, and the
 *  tab strip does not scroll (a tab scrolled out of sight is one a newcomer never finds). */
async function expectTopBarFits(page: Page, width: number) {
  await page.setViewportSize({ width, height: 800 });
  const bar = page.getByTestId('top-bar');
  const protocol = (await page.getByTestId('protocol-select').boundingBox())!;
  const strip = page.locator('.mcpscope-tabs');
  expect(await strip.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  for (const id of ['tools', 'apps', 'resources', 'prompts', 'logs', 'tasks', 'history', 'traffic', 'experimental']) {
    const b = (await bar.getByTestId(`tab-${id}`).boundingBox())!;
    expect(b.x + b.width, `${id} at ${width} px`).toBeLessThanOrEqual(width);
    const sameRow = b.y < protocol.y + protocol.height && protocol.y < b.y + b.height;
    if (sameRow) expect(b.x + b.width, `${id} under the protocol selector at ${width} px`).toBeLessThanOrEqual(protocol.x);
  }
  await shot(page, `newcomer-top-bar-${width}`);
}

test('server list: a labelled toggle, a bad URL on its field, a dead server says why, a favicon', async ({ page, backend }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, backend);
  await expect(page.locator('link[rel=icon]')).toHaveAttribute('href', '/favicon.svg');
  const icon = await page.request.get(`${backend.origin}/favicon.svg`);
  expect(icon.status()).toBe(200);
  expect(icon.headers()['content-type']).toContain('image/svg+xml');

  // The toggle says what it does, in words on screen (not only to a screen reader).
  const demo = page.locator('[data-testid=server-card][data-server=demo]');
  await expect(demo.getByTestId('server-toggle')).toContainText('Connect');
  await expect(demo.getByRole('switch', { name: 'Connect' })).toBeVisible();

  // A URL without a scheme: said on the URL field, with what to write.
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('add-manually').click();
  await page.getByTestId('server-form-name').fill('typo');
  await page.getByTestId('server-form-transport').getByText('Streamable HTTP').click();
  const url = page.getByTestId('server-form-url');
  await url.fill('localhost:7100/mcp');
  await page.getByTestId('server-form-save').click();
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  const urlField = page.getByRole('dialog').locator('.mantine-TextInput-root').filter({ has: url });
  await expect(urlField).toContainText('http://localhost:7100/mcp');
  await url.fill('abc');
  await page.getByTestId('server-form-save').click();
  await expect(urlField).toContainText('not a full URL');
  await expect(page.getByRole('dialog')).not.toContainText('relative URL without a base');
  await expect(page.getByTestId('server-form-error')).toHaveCount(0);
  await shot(page, 'newcomer-bad-url');
  await page.keyboard.press('Escape');

  // A server that dies at start: its card shows the stderr line that says why, unasked.
  await importServer(page, 'broken', {
    command: 'sh',
    args: ['-c', "echo 'starting up' >&2; echo 'ModuleNotFoundError: No module named mcp' >&2; exit 1"],
  });
  const broken = page.locator('[data-testid=server-card][data-server=broken]');
  await broken.getByRole('switch', { name: 'Connect' }).click();
  await expect(broken).toHaveAttribute('data-status', 'failed');
  await expect(broken.getByTestId('inline-error-message')).toContainText('ModuleNotFoundError: No module named mcp');
  await shot(page, 'newcomer-failed-card');

  // Connecting by the labelled toggle; on the Apps tab, disconnect and connect again: the apps
  // list is asked of the new connection once it has listed its tools, never answered 409.
  const refused: string[] = [];
  page.on('response', (r) => r.url().includes('/apps') && r.status() >= 400 && refused.push(`${r.status()} ${r.url()}`));
  await demo.getByRole('switch', { name: 'Connect' }).click();
  await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'server');
  await tab(page, 'apps');
  await expect(page.locator('[data-testid=app-item][data-app="show-app"]')).toBeVisible();
  await page.getByTestId('disconnect').click();
  await expect(demo).toHaveAttribute('data-status', 'disconnected');
  await demo.getByRole('switch', { name: 'Connect' }).click();
  await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'server');
  await tab(page, 'apps');
  await expect(page.locator('[data-testid=app-item][data-app="show-app"]')).toBeVisible();
  expect(refused).toEqual([]);

  // Calls made before Traffic was ever opened: opened, it shows rows, the newest in view.
  await tab(page, 'tools');
  await selectTool(page, 'echo');
  for (let i = 1; i <= 12; i++) {
    await field(page, '/message').locator('input').fill(`call ${i}`);
    await page.getByTestId('execute').click();
    await expect(page.getByTestId('tool-result')).toContainText(`call ${i}`);
  }
  await tab(page, 'traffic');
  const count = Number(await page.getByTestId('frame-count').getAttribute('data-count'));
  expect(count).toBeGreaterThan(30);
  await expect(page.getByTestId('frame-list').getByTestId('frame-row').first()).toBeVisible();
  // At once, not when the next frame (the 15 s ping) happens to scroll the list.
  await expect(page.getByTestId('frame-list').locator(`[data-index="${count - 1}"]`)).toBeInViewport({ timeout: 5_000 });
  await shot(page, 'newcomer-traffic');
});

test('server-everything as a newcomer: top bar, era, forms, waits, History, Traffic, no console errors', async ({ page, backend }) => {
  test.skip(!existsSync(PEERS), 'the peers are not installed (bash testenv/install.sh)');
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const errors = consoleErrors(page);
  const conflicts: string[] = [];
  page.on('response', (r) => r.url().includes('/apps') && r.status() >= 400 && conflicts.push(`${r.status()} ${r.url()}`));
  const toasts = await recordToasts(page);
  await openUi(page, backend);
  // Auto era, as a newcomer leaves it: the probe finds a legacy server.
  await importServer(page, 'everything', { command: 'bash', args: [EVERYTHING, 'stdio'] });
  await page.locator('[data-testid=server-card][data-server=everything]').getByRole('switch', { name: 'Connect' }).click();
  await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'server');
  await expect(page.getByTestId('top-bar').getByTestId('status')).toHaveAttribute('data-status', 'connected');
  await expect(page.getByTestId('tools-count')).not.toHaveAttribute('data-count', '0');

  // A legacy server is normal: no warning toast, no Traffic banner.
  await expect(page.locator('.mantine-Notification-root').filter({ hasText: 'Connected to everything' })).toBeVisible();
  expect((await toasts()).filter((t) => t.includes('Warning'))).toEqual([]);

  await expectTopBarFits(page, 1280);
  await expectTopBarFits(page, 1024);
  await page.setViewportSize({ width: 1280, height: 800 });

  // A number typed wrong survives Form → JSON; the call is refused: an ordinary tool error.
  await selectTool(page, 'get-sum');
  await field(page, '/a').locator('input').fill('abc');
  await field(page, '/b').locator('input').fill('2');
  await page.getByTestId('form-mode').getByText('JSON').click();
  await expect(page.getByTestId('arguments-json')).toHaveValue(/"a":\s*"abc"/);
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', /error/);
  await page.getByTestId('form-mode').getByText('Form').click();

  // Cancel a long call: ordinary.
  await selectTool(page, 'trigger-long-running-operation');
  await field(page, '/duration').locator('input').fill('30');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('progress')).toHaveAttribute('data-has-progress', 'true');
  await page.getByTestId('cancel').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'cancelled');

  // A call whose server asks the user: the wait is the user's, and its requests are its own.
  await selectTool(page, 'trigger-elicitation-request');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('progress')).toHaveAttribute('data-asked', '1');
  await expect(page.getByTestId('progress-message')).toContainText('waiting for your answer');
  await expect(page.getByTestId('progress-message')).not.toContainText('Waiting for the server');
  await shot(page, 'newcomer-waiting-on-user');
  await page.getByTestId('request-queue-slot').getByTestId('elicit-decline').click();
  await expect(page.getByTestId('tool-result')).toBeVisible();
  await expect(page.getByTestId('answered-requests')).toContainText('elicitation/create');
  await selectTool(page, 'echo');
  await field(page, '/message').locator('input').fill('hello');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toContainText('hello');
  await expect(page.getByTestId('answered-requests')).toHaveCount(0);

  // Completion asked key by key: one History line.
  await tab(page, 'prompts');
  await page.getByTestId('prompt-select').click();
  await page.getByRole('option', { name: 'Team Management' }).click();
  const department = page.getByTestId('prompt-detail').locator('[data-testid=form-field][data-field="/department"] input');
  await department.pressSequentially('Eng', { delay: 50 });
  await expect(department).toHaveAttribute('data-suggestions', '1');

  // History: the completions folded, a pin on top, the columns aligned.
  await tab(page, 'history');
  const list = page.getByTestId('history-list');
  await expect(list.locator('[data-testid=history-entry][data-method="completion/complete"]')).toHaveCount(1);
  await expect(list.getByTestId('history-folded')).toHaveAttribute('data-folded', /[1-9]/);
  const echo = list.locator('[data-testid=history-entry][data-method="tools/call"]').filter({ has: page.getByTestId('history-target').getByText('echo') });
  await echo.getByTestId('pin').click();
  await page.getByTestId('pin-confirm').click();
  await expect(page.getByTestId('pinned-list')).toHaveAttribute('data-count', '1');
  const pinnedTop = (await page.getByTestId('pinned-list').boundingBox())!.y;
  expect(pinnedTop).toBeLessThan((await list.boundingBox())!.y);
  const xs = await list.getByTestId('history-status').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
  expect(xs.length).toBeGreaterThan(3);
  expect(new Set(xs).size, `status badges start at ${xs.join(', ')}`).toBe(1);
  await shot(page, 'newcomer-history');

  // Traffic, opened for the first time after all that: rows, the newest in view.
  await tab(page, 'traffic');
  const frames = page.getByTestId('frame-list');
  const count = Number(await page.getByTestId('frame-count').getAttribute('data-count'));
  expect(count).toBeGreaterThan(30);
  await expect(frames.locator(`[data-index="${count - 1}"]`)).toBeInViewport();
  // No banner calls a normal legacy server a warning, and progress that arrives after a cancel
  // is expected, not 'for an unknown token' (when neither shows, there is no banner at all).
  await expect(page.getByTestId('traffic-warning').filter({ hasText: 'legacy' })).toHaveCount(0);
  await expect(page.getByTestId('traffic-warning').filter({ hasText: 'unknown' })).toHaveCount(0);

  expect(conflicts).toEqual([]);
  expect(errors).toEqual([]);
});
