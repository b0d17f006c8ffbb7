// Top bar: status with latency, tabs, the protocol selector (reconnects and clears), the Apps tab
// idle (apps.spec.ts drives it) and Tasks, Disconnect.
import { connect, expect, openUi, selectTool, shot, tab, test } from '../fixtures';

test('top bar: protocol selector reconnects and clears; later tabs; disconnect', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await expect(page.getByTestId('top-bar').getByTestId('status')).toHaveAttribute('data-status', 'connected');

  await selectTool(page, 'echo');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toBeVisible();

  const screens = page.getByTestId('screens');
  const before = Number(await screens.getAttribute('data-reset'));
  await page.getByTestId('protocol-select').click();
  await page.getByRole('option', { name: '2026-07-28' }).click();
  await expect(screens).toHaveAttribute('data-reset', String(before + 1));
  await expect(page.getByTestId('top-bar').getByTestId('status')).toHaveAttribute('data-status', 'connected');
  // Outputs are cleared.
  await expect(page.getByTestId('tool-result')).toHaveCount(0);
  await page.getByTestId('server-menu').click();
  await page.getByTestId('menu-server-info').click();
  await expect(page.getByTestId('info-era')).toContainText('modern');
  await page.keyboard.press('Escape');

  await tab(page, 'apps');
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-app-status', 'idle');
  await expect(page.getByTestId('apps-count')).not.toHaveAttribute('data-count', '0');
  await shot(page, 'apps');
  await tab(page, 'tasks');
  // Tasks is a real screen now (tasks.spec.ts drives it); here it only has to load on the
  // connection the protocol switch just made.
  await expect(page.getByTestId('screen-tasks')).toHaveAttribute('data-state', 'ready');
  await shot(page, 'tasks');

  await page.getByTestId('disconnect').click();
  await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'list');
  await expect(page.locator('[data-testid=server-card][data-server=demo]')).toHaveAttribute('data-status', 'disconnected');
});
