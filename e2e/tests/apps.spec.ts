// MCP Apps: the demo server's app opened in the sandbox (another origin), drawn, calling back
// into its server (its app-only tool), refused a model-only tool, resized, a link confirmed and a
// javascript: link refused, its fetch('/api/servers') failing, its messages in Traffic linked to
// History, closed; the Tools tab refusing the app-only tool; a deep link; a hostile app's flood,
// malformed and huge messages and size loop, and resources that are not HTML, missing or too big;
// the npm example servers of the MCP Apps project; the theme followed (host-context-changed), the
// app's own resources/read, and an app's call whose question the UI asks.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FrameLocator, Page } from '@playwright/test';
import { REPO, TOKEN, connect, era, expect, openUi, selectTool, shot, tab, test } from '../fixtures';

const HOSTILE = path.join(REPO, 'e2e/servers/hostile-app-server.mjs');
// The Node that runs Playwright runs the hostile server too (an absolute path: the stdio child's PATH is not ours).

/** The app's own document: the sandbox proxy's frame, then the app's frame inside it. */
function appDoc(page: Page): FrameLocator {
  return page.frameLocator('[data-testid=app-frame]').frameLocator('iframe');
}

async function openApp(page: Page, tool: string) {
  await tab(page, 'apps');
  await page.getByTestId('app-search').fill(tool);
  await page.locator(`[data-testid=app-item][data-app="${tool}"]`).click();
  // A tool with inputs shows its form first; one without opens at once.
  const running = page.locator(`[data-testid=app-panel][data-app="${tool}"]`);
  const button = page.getByTestId('open-app');
  await expect(button.or(running)).toBeVisible();
  if (await button.isVisible()) await button.click();
  await expect(running).toBeVisible();
}

async function importServer(page: Page, name: string, entry: object) {
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { [name]: entry } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText(name);
  await page.keyboard.press('Escape');
}

test('the demo app: drawn in the sandbox, calls back, resizes, links, no /api, Traffic, close', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await openApp(page, 'show-app');
  const panel = page.getByTestId('app-panel');
  await expect(panel).toHaveAttribute('data-app-status', 'ready');
  const app = appDoc(page);
  await expect(app.locator('#status')).toHaveAttribute('data-state', 'initialized');
  await expect(app.locator('#host-info')).toContainText('mcpscope');
  await expect(app.locator('#tool-result')).toContainText('ui://demo/app.html');

  // The app's app-only tool runs; the model-only one is refused by the host.
  await app.locator('#call-app-tool').click();
  await expect(app.locator('#call-result')).toHaveAttribute('data-state', 'ok');
  await expect(app.locator('#call-result')).toContainText('refreshed');
  await app.locator('#call-model-only').click();
  await expect(app.locator('#call-result')).toHaveAttribute('data-state', 'error');
  await expect(app.locator('#call-result')).toContainText('tool_not_visible');

  // size-changed resizes the frame.
  await app.locator('#grow').click();
  await expect(page.getByTestId('app-frame')).not.toHaveAttribute('data-height', '');

  // An https link is opened once confirmed; a javascript: link is refused without asking.
  const popup = page.waitForEvent('popup');
  await app.locator('#open-link').click();
  await expect(page.getByTestId('app-confirm-url')).toHaveText('https://example.com/mcpscope-demo');
  await shot(page, 'apps-open-link');
  await page.getByTestId('app-confirm-yes').click();
  await (await popup).close();
  await expect(app.locator('#open-link-result')).toHaveAttribute('data-state', 'ok');
  await app.locator('#open-js-link').click();
  await expect(app.locator('#open-link-result')).toHaveAttribute('data-state', 'error');
  await expect(app.locator('#open-link-result')).toContainText('javascript:');
  await expect(page.getByTestId('app-confirm-url')).toHaveCount(0);

  // The app runs on the sandbox origin under its CSP: the UI's /api is out of its reach.
  await app.locator('#fetch-api').click();
  await expect(app.locator('#fetch-result')).toHaveAttribute('data-state', 'blocked');

  await app.locator('#log').click();
  await expect(page.locator('[data-testid=app-model-note][data-method="notifications/message"]')).toContainText('hello from the demo app');
  await shot(page, 'apps-demo');

  // By the names a screen reader reads: Maximize, then Restore.
  await page.getByRole('button', { name: 'Maximize', exact: true }).click();
  await expect(page.getByTestId('screen-apps')).toHaveAttribute('data-maximized', 'true');
  await expect(page.getByTestId('app-list-pane')).toBeHidden();
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.getByTestId('screen-apps')).toHaveAttribute('data-maximized', 'false');

  // Traffic: the bridge messages as source App; the app's tools/call linked to its History entry.
  await tab(page, 'traffic');
  await page.getByTestId('traffic-search').fill('show-app');
  const call = page.locator('[data-testid=frame-row][data-source=app][data-app-direction=fromApp][data-method="tools/call"]').first();
  await expect(call).toHaveAttribute('data-history-id', /\d+/);
  await expect(page.locator('[data-testid=frame-row][data-source=app][data-method="ui/initialize"]').first()).toBeVisible();
  await call.getByRole('button').first().click();
  await expect(call.getByTestId('frame-app')).toContainText('show-app');
  await shot(page, 'apps-traffic');
  await call.getByTestId('frame-history-link').click();
  await expect(page.getByTestId('screen-history')).toBeVisible();

  // The app was on a hidden tab meanwhile: it is never told its container is 0 px wide. Its
  // messages are recorded in order, so once its next log is in Traffic any earlier one is too.
  await tab(page, 'apps');
  await app.locator('#log').click();
  await tab(page, 'traffic');
  await page.getByTestId('traffic-search').fill('hello from the demo app');
  await expect(page.locator('[data-testid=frame-row][data-source=app][data-app-direction=fromApp][data-method="notifications/message"]')).toHaveCount(2);
  await page.getByTestId('traffic-search').fill('"containerDimensions":{"width":0');
  await expect(page.getByTestId('frame-count')).toHaveAttribute('data-count', '0');
  await page.getByTestId('traffic-search').fill('');

  // Close waits for the app's ui/resource-teardown answer.
  await tab(page, 'apps');
  await page.getByTestId('app-close').click();
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-app-status', 'idle');
  await tab(page, 'traffic');
  await expect(page.locator('[data-testid=frame-row][data-source=app][data-method="ui/resource-teardown"]').first()).toBeVisible();

  // The app-only tool is not runnable from Tools.
  await tab(page, 'tools');
  await selectTool(page, 'app-refresh');
  await expect(page.getByTestId('app-only')).toBeVisible();
  await expect(page.getByTestId('execute')).toBeDisabled();
});

test('the demo app: its theme follows the UI, its resources/read, its call\'s question asked in the UI', async ({ page, backend }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await openUi(page, backend);
  await connect(page, 'demo');
  await openApp(page, 'show-app');
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-app-status', 'ready');
  const app = appDoc(page);
  await expect(app.locator('#status')).toHaveAttribute('data-state', 'initialized');

  // The UI follows prefers-color-scheme (Mantine "auto"); the app is told by host-context-changed.
  await expect(app.locator('#host-context')).toHaveAttribute('data-theme', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(app.locator('#host-context')).toHaveAttribute('data-theme', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(app.locator('#host-context')).toHaveAttribute('data-theme', 'light');

  // The app reads its own page back through the host.
  await app.locator('#read-resource').click();
  await expect(app.locator('#read-result')).toHaveAttribute('data-state', 'ok');
  await expect(app.locator('#read-result')).toHaveText(/^ok: text\/html;profile=mcp-app \d{4,}$/);

  // The app calls elicit-form: its question waits in the UI's queue (the modal: no call on screen), declined there.
  await app.locator('#call-elicit').click();
  const modal = page.getByTestId('pending-modal-body');
  await expect(modal.getByTestId('interaction-message')).toContainText('Please fill in the demo form');
  await expect(page.getByTestId('pending-badge')).toHaveAttribute('data-count', '1');
  await shot(page, 'apps-elicit');
  await modal.getByTestId('elicit-decline').click();
  await expect(app.locator('#call-result')).toHaveAttribute('data-state', 'ok');
  await expect(app.locator('#call-result')).toContainText('decline');
  await expect(page.getByTestId('pending-badge')).toHaveCount(0);

  // Traffic: the theme change sent to the app, the app's read linked to its History entry.
  await tab(page, 'traffic');
  await page.getByTestId('traffic-search').fill('show-app');
  await expect(page.locator('[data-testid=frame-row][data-source=app][data-app-direction=toApp][data-method="ui/notifications/host-context-changed"]').first()).toBeVisible();
  const read = page.locator('[data-testid=frame-row][data-source=app][data-app-direction=fromApp][data-method="resources/read"]').first();
  await expect(read).toHaveAttribute('data-history-id', /\d+/);
  const hid = await read.getAttribute('data-history-id');
  await tab(page, 'history');
  await expect(page.locator(`[data-testid=history-entry][data-history-id="${hid}"]`)).toHaveAttribute('data-method', 'resources/read');

  // Legacy era: the same call's question is an elicitation/create server request; cancelled.
  await era(page, '2025-11-25');
  await openApp(page, 'show-app');
  await expect(app.locator('#status')).toHaveAttribute('data-state', 'initialized');
  await app.locator('#call-elicit').click();
  await expect(modal.getByTestId('interaction-title')).toHaveText('Elicitation Request');
  await modal.getByTestId('elicit-cancel').click();
  await expect(app.locator('#call-result')).toHaveAttribute('data-state', 'ok');
  await expect(app.locator('#call-result')).toContainText('cancel');
});

test('a deep link, once confirmed, connects the server and opens the app with its arguments, once', async ({ page, backend }) => {
  const args = Buffer.from(JSON.stringify({ from: 'the deep link' })).toString('base64url');
  await page.goto(`${backend.origin}/?token=${TOKEN}&server=demo&openApp=show-app&appArgs=${args}`);
  // It asks first (security.spec.ts: a link from another page runs nothing by itself).
  await expect(page.getByTestId('deep-link-args')).toContainText('the deep link');
  await page.getByTestId('deep-link-confirm').click();
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-app-status', 'ready');
  await expect(appDoc(page).locator('#tool-input')).toContainText('the deep link');
  // Acted on once: the parameters are gone from the address bar.
  expect(new URL(page.url()).search).toBe('');
  await shot(page, 'apps-deep-link');
});

test('a hostile app is bounded and shown; refused resources say why', async ({ page, backend }) => {
  await openUi(page, backend);
  await importServer(page, 'hostile', { command: process.execPath, args: [HOSTILE], protocolEra: 'legacy' });
  await connect(page, 'hostile');
  await openApp(page, 'hostile-app');
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-app-status', 'ready');
  const app = appDoc(page);
  await expect(app.locator('#status')).toHaveAttribute('data-state', 'initialized');

  // Display modes: honoured and answered with the actual mode.
  await app.locator('#fullscreen').click();
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-mode', 'fullscreen');
  await expect(app.locator('#answers')).toContainText('{"mode":"fullscreen"}');
  await page.getByTestId('app-inline').click();
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-mode', 'inline');
  await app.locator('#pip').click();
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-mode', 'pip');
  await page.getByTestId('app-inline').click();

  // A download is confirmed first, then saved.
  await app.locator('#download').click();
  await expect(page.getByTestId('app-confirm')).toContainText('report.csv');
  const download = page.waitForEvent('download');
  await page.getByTestId('app-confirm-yes').click();
  expect((await download).suggestedFilename()).toBe('report.csv');
  await expect(app.locator('#answers')).toContainText('"id":62,"result":{}');

  await app.locator('#unknown').click();
  await expect(app.locator('#answers')).toContainText('-32601');

  // A flood: dropped and counted, the page still answers.
  await app.locator('#flood').click();
  await expect(page.getByTestId('app-dropped')).toBeVisible();
  await page.getByTestId('app-maximize').click();
  await expect(page.getByTestId('screen-apps')).toHaveAttribute('data-maximized', 'true');
  await page.getByTestId('app-maximize').click();

  // Malformed JSON-RPC with an id is answered -32600.
  // (What the app sends within the flood's second is dropped too: each step retries until its
  // message lands in a later second.)
  await expect(async () => {
    await app.locator('#malformed').click();
    await expect(app.locator('#answers')).toContainText('"id":55', { timeout: 1500 });
  }).toPass();
  await expect(app.locator('#answers')).toContainText('-32600');
  // A 3 MB message is not relayed; a size loop stops being obeyed.
  await expect(async () => {
    await app.locator('#huge').click();
    await expect(page.getByTestId('app-notes')).toContainText('over 1048576', { timeout: 1500 });
  }).toPass();
  await expect(async () => {
    await app.locator('#loop').click();
    await expect(page.getByTestId('app-notes')).toContainText('size changes in a second', { timeout: 1500 });
  }).toPass();
  await shot(page, 'apps-hostile');

  await tab(page, 'traffic');
  await page.getByTestId('traffic-search').fill('malformed');
  await expect(page.locator('[data-testid=frame-row][data-source=app]').first()).toBeVisible();

  // An app that does not answer ui/resource-teardown is torn down after the bound, and it says so.
  await tab(page, 'apps');
  await app.locator('#mute').click();
  await page.getByTestId('app-close').click();
  await expect(page.getByTestId('app-notes')).toContainText('did not answer ui/resource-teardown in 3 s');
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-app-status', 'idle');

  for (const [tool, why] of [
    ['not-html-app', /text\/plain|not HTML/i],
    ['missing-app', /not found|missing|read/i],
    ['huge-app', /MiB|too big|bigger/i],
  ] as const) {
    await openApp(page, tool);
    await expect(page.getByTestId('app-panel')).toHaveAttribute('data-app-status', 'error');
    await expect(page.getByTestId('app-error')).toContainText('app_refused');
    await expect(page.getByTestId('app-error')).toContainText(why);
    if (tool === 'not-html-app') await shot(page, 'apps-refused');
    await page.getByTestId('app-close').click();
  }
});

/** The MCP Apps project's example servers (pinned in testenv/npm/peers, started by testenv/peers/basic-app.sh). */
for (const variant of ['vanillajs', 'react'] as const) {
  const example = `server-basic-${variant}`;
  test(`the example ${example}: opened, drawn, its own buttons call back into its server`, async ({ page, backend }) => {
    const script = path.join(REPO, 'testenv/peers/basic-app.sh');
    test.skip(!existsSync(script) || !existsSync(path.join(REPO, '.peers/peers/node_modules/@modelcontextprotocol', example)), `${example} is not installed (bash testenv/install.sh)`);
    await openUi(page, backend);
    await importServer(page, example, { command: script, args: [variant, 'stdio'], protocolEra: 'legacy', env: { MCPSCOPE_PEERS_DIR: path.join(REPO, '.peers') } });
    await connect(page, example);
    await openApp(page, 'get-time');
    const panel = page.getByTestId('app-panel');
    await expect(panel).toHaveAttribute('data-app-status', 'ready');
    const app = appDoc(page);
    // Its own App class drew the page and got the tool's result.
    await expect(app.getByRole('button', { name: 'Get Server Time' })).toBeVisible();
    // It sizes itself (ext-apps' auto-resize sends size-changed): the frame follows.
    await expect(page.getByTestId('app-frame')).toHaveAttribute('data-height', /\d+/);
    // Its button calls get-time back through the host (origin app): a tools/call in Traffic, linked to History.
    const before = await page.locator('[data-testid=app-history-link]').count();
    expect(before).toBe(1);
    await app.getByRole('button', { name: 'Get Server Time' }).click();
    await app.getByRole('button', { name: 'Send Message' }).click();
    await expect(page.locator('[data-testid=app-model-note][data-method="ui/message"]').first()).toBeVisible();
    await shot(page, `apps-${example}`);
    await tab(page, 'traffic');
    await page.getByTestId('traffic-search').fill('get-time');
    await expect(page.locator('[data-testid=frame-row][data-source=app][data-app-direction=fromApp][data-method="tools/call"]').first()).toHaveAttribute('data-history-id', /\d+/);
    await tab(page, 'apps');
    await page.getByTestId('app-close').click();
    await expect(panel).toHaveAttribute('data-app-status', 'idle');
    await tab(page, 'traffic');
    await expect(page.locator('[data-testid=frame-row][data-source=app][data-method="ui/resource-teardown"]').first()).toBeVisible();
  });
}
