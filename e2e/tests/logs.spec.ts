// Logs: change the level, see logs coloured by level, filter, correlate with the request.
import { addHttpServer, connect, era, expect, openUi, selectTool, shot, tab, test } from '../fixtures';

test('logs: set the level, see the stream, filter, correlate', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');

  await tab(page, 'logs');
  await page.getByTestId('log-level-select').click();
  await page.getByRole('option', { name: 'warning', exact: true }).click();
  await page.getByTestId('set-level').click();
  await expect(page.getByTestId('current-level')).toHaveAttribute('data-level', 'warning');

  await tab(page, 'tools');
  await selectTool(page, 'log-every-level');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');

  await tab(page, 'logs');
  await expect(page.locator('[data-testid=log-line][data-level=warning]').first()).toBeVisible();
  await expect(page.locator('[data-testid=log-line][data-level=error]').first()).toBeVisible();
  // At warning, nothing below it arrives.
  await expect(page.locator('[data-testid=log-line][data-level=debug]')).toHaveCount(0);
  await expect(page.locator('[data-testid=log-line][data-level=info]')).toHaveCount(0);

  // Level checkboxes hide a level.
  await page.locator('[data-testid=level-checkbox][data-level=error]').click();
  await expect(page.locator('[data-testid=log-line][data-level=error]')).toHaveCount(0);
  await page.locator('[data-testid=level-checkbox][data-level=error]').click();

  // Switching the protocol era keeps the level chosen: the new connection logs at warning too
  // (issue 24: the page used to apply debug over it).
  await era(page, '2026-07-28');
  await expect(page.getByTestId('current-level')).toHaveAttribute('data-level', 'warning');
  await tab(page, 'tools');
  await selectTool(page, 'log-every-level');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await tab(page, 'logs');
  await expect(page.locator('[data-testid=log-line][data-level=warning]').first()).toBeVisible();
  await expect(page.locator('[data-testid=log-line][data-level=debug]')).toHaveCount(0);
  // And back: a new legacy session logs everything until told, so the page tells it again.
  await era(page, '2025-11-25');
  await expect(page.getByTestId('current-level')).toHaveAttribute('data-level', 'warning');
  await tab(page, 'tools');
  await selectTool(page, 'log-every-level');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await tab(page, 'logs');
  await expect(page.locator('[data-testid=log-line][data-level=warning]').first()).toBeVisible();
  await expect(page.locator('[data-testid=log-line][data-level=debug]')).toHaveCount(0);

  // Lower the level to debug and run again: debug lines arrive.
  await page.getByTestId('log-level-select').click();
  await page.getByRole('option', { name: 'debug', exact: true }).click();
  await page.getByTestId('set-level').click();
  await expect(page.getByTestId('current-level')).toHaveAttribute('data-level', 'debug');
  await tab(page, 'tools');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await tab(page, 'logs');
  await expect(page.locator('[data-testid=log-line][data-level=debug]').first()).toBeVisible();

  // Correlation: filter by the request that caused a line, then jump to it in History.
  const link = page.getByTestId('log-request-link').last();
  if (await link.count()) {
    await link.click();
    await expect(page.getByTestId('log-request-filter')).toBeVisible();
    await shot(page, 'logs');
    await page.getByTestId('log-request-filter').getByTestId('view-in-history').click();
    await expect(page.getByTestId('screen-history')).toBeVisible();
    await expect(page.locator('[data-testid=history-entry][data-focused=true]').first()).toBeVisible();
  } else {
    await shot(page, 'logs');
  }
});

test('logs: a 2026-07-28 connection logs at once, and a request filter stays with its server', async ({ page, backend, demoHttp }) => {
  await openUi(page, backend);
  await addHttpServer(page, 'demo-http', demoHttp.url, '2026-07-28');
  await connect(page, 'demo-http');

  // Nothing pressed in Logs: the level the selector shows is the one in effect (issue 24).
  await selectTool(page, 'log-every-level');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await tab(page, 'logs');
  await expect(page.getByTestId('current-level')).toHaveAttribute('data-level', 'debug');
  await expect(page.locator('[data-testid=log-line][data-level=debug]').first()).toBeVisible();

  // Filter by that request, then open another server: its logs are not filtered by it.
  await page.getByTestId('log-request-link').last().click();
  await expect(page.getByTestId('log-request-filter')).toBeVisible();
  await page.getByTestId('home').click();
  await connect(page, 'demo');
  await selectTool(page, 'log-every-level');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await tab(page, 'logs');
  await expect(page.getByTestId('log-request-filter')).toHaveCount(0);
  await expect(page.getByTestId('log-line').first()).toBeVisible();
});
