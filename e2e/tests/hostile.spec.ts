// Hostile servers in the browser (issue 9, "Bad input"), the testkit's own misbehaving fixtures
// over stdio (2025-11-25): `hostile-interactions` asks a thousand questions at once — the
// backend keeps 500 (its bound) and declines the rest at once, the pending block draws a few
// cards and counts the others, the page stays usable — and sends a request method nobody knows
// (answered -32601, a warning in Traffic, no card left behind); `hostile-tasks` lists 10,000
// tasks (an invented status marked as such) and runs a task that asks a poll interval of 0
// (bounded, and said), whose completion reaches the Tasks screen by push.
import type { Page } from '@playwright/test';
import path from 'node:path';
import { REPO, connect, expect, openUi, selectTool, shot, tab, test } from '../fixtures';

const TESTKIT = path.join(REPO, 'target/debug/mcpscope-testkit');

async function importServer(page: Page, name: string, entry: object) {
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { [name]: entry } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText(name);
  await page.keyboard.press('Escape');
}

/** Close the pending-requests dialog if it is open (Escape, as a user would). */
async function closeDialog(page: Page) {
  const modal = page.locator('.mantine-Modal-content');
  await page.waitForTimeout(300);
  if (await modal.isVisible()) {
    await page.keyboard.press('Escape');
    await expect(modal).toHaveCount(0);
  }
}

test('a thousand questions at once are bounded and counted; an unknown request is a warning', async ({ page, backend }) => {
  await openUi(page, backend);
  await importServer(page, 'hostile', { command: TESTKIT, args: ['hostile-interactions'], protocolEra: 'legacy' });
  await connect(page, 'hostile');

  await tab(page, 'tools');
  await selectTool(page, 'questions');
  await page.getByTestId('execute').click();
  // 500 wait (the backend's bound); the other 500 were declined at once.
  await expect(page.getByTestId('pending-badge')).toHaveAttribute('data-count', '500', { timeout: 30_000 });
  const block = page.getByTestId('pending-requests').filter({ visible: true }).first();
  await expect(block).toHaveAttribute('data-count', '500');
  await expect(block.getByTestId('pending-requests-title')).toContainText('Pending Client Requests (500)');
  expect(await block.getByTestId('interaction').count()).toBeLessThanOrEqual(20);
  const more = block.getByTestId('pending-more');
  await expect(more).toContainText('more waiting');
  expect(Number(await more.getAttribute('data-count'))).toBeGreaterThanOrEqual(479);
  await shot(page, 'hostile-thousand-questions');
  // Still usable: the dialog closes, another screen (where the questions, no longer under their
  // call, come up in the dialog: closed again) and back.
  await closeDialog(page);
  await tab(page, 'traffic');
  await closeDialog(page);
  await tab(page, 'tools');
  await expect(page.getByTestId('pending-badge')).toHaveAttribute('data-count', '500');
  // Disconnecting abandons what waits; the badge goes.
  await page.getByTestId('disconnect').click();
  await expect(page.getByTestId('pending-badge')).toHaveCount(0, { timeout: 30_000 });

  // A request no client knows: answered method-not-found, said in Traffic, no card.
  await connect(page, 'hostile');
  await tab(page, 'tools');
  await selectTool(page, 'unknown-request');
  await page.getByTestId('execute').click();
  const tools = page.getByTestId('screen-tools');
  await expect(tools.getByTestId('tool-result')).toContainText('unknown-request: 1 answered: error -32601');
  await expect(page.getByTestId('pending-badge')).toHaveCount(0);
  await tab(page, 'traffic');
  await expect(page.getByTestId('traffic-warning')).toContainText('x-vendor/frobnicate');
  await expect(page.getByTestId('traffic-warning')).toContainText('does not know');
  await shot(page, 'hostile-unknown-request');
});

test('10,000 listed tasks, an invented status, a poll interval of 0 bounded and pushed', async ({ page, backend }) => {
  await openUi(page, backend);
  await importServer(page, 'tasks', { command: TESTKIT, args: ['hostile-tasks'], protocolEra: 'legacy' });
  await connect(page, 'tasks');

  await tab(page, 'tasks');
  await page.getByTestId('tasks-refresh').click();
  // Statuses cycle through the five and an invented one: half are terminal.
  await expect(page.getByTestId('active-tasks')).toContainText('Active Tasks (5000)', { timeout: 30_000 });
  // Two headers and 10,000 rows, of which only what is on screen is drawn.
  await expect(page.getByTestId('task-list')).toHaveAttribute('data-count', '10002');
  expect(await page.getByTestId('task-row').count()).toBeLessThan(60);
  const odd = page.locator('[data-testid=task-row][data-task-id="listed-00005"]');
  await expect(odd).toHaveAttribute('data-status', 'on-vacation');
  await expect(odd).toContainText('not in the spec');

  // A task that asks to be polled every 0 ms.
  await tab(page, 'tools');
  await selectTool(page, 'poll-zero');
  const toggle = page.getByTestId('run-as-task-toggle');
  if (!(await toggle.isChecked())) await toggle.check();
  await page.getByTestId('execute').click();
  const created = page.getByTestId('screen-tools').getByTestId('task-created');
  await expect(created).toBeVisible();
  const id = (await created.getAttribute('data-task-id'))!;
  await tab(page, 'tasks');
  const screen = page.getByTestId('screen-tasks');
  await page.getByTestId('task-id-input').fill(id);
  await page.getByTestId('task-id-get').click();
  const detail = page.locator(`[data-testid=task-detail][data-task-id="${id}"]`);
  await expect(detail).toBeVisible();
  await shot(page, 'hostile-tasks');
  // Six polls at the 250 ms floor: it completes in about 1.5 s, and the page hears it by push
  // (its fallback read is every 10 s).
  await expect(detail).toHaveAttribute('data-status', 'completed', { timeout: 6_000 });
  await expect(detail.getByTestId('task-detail-polling')).toContainText('ended');
  await expect(screen).toHaveAttribute('data-state', 'ready');
});
