// History: find the call, replay it, pin it, restart the backend and find the pin.
import { connect, expect, field, openUi, selectTool, shot, tab, test } from '../fixtures';

test('history: search, replay, pin, survive a restart', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await selectTool(page, 'echo');
  await field(page, '/message').locator('input').fill('remember me');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');

  await tab(page, 'history');
  await page.getByTestId('history-search').fill('remember');
  const entry = page.getByTestId('history-list').locator('[data-testid=history-entry][data-method="tools/call"]').first();
  await expect(entry).toBeVisible();
  await expect(entry.getByTestId('history-target')).toContainText('echo');
  await entry.getByTestId('history-toggle').click();
  await expect(entry.getByTestId('history-detail')).toContainText('remember me');

  // Pin it with a label.
  await entry.getByTestId('pin').click();
  await page.getByTestId('pin-label-input').fill('my pinned echo');
  await page.getByTestId('pin-confirm').click();
  await expect(page.getByTestId('pinned-list').getByTestId('pin-label')).toContainText('my pinned echo');
  await shot(page, 'history');

  // Replay opens Tools pre-filled.
  await entry.getByTestId('replay').click();
  await expect(page.getByTestId('screen-tools')).toBeVisible();
  await expect(page.locator('[data-testid=tool-detail][data-tool=echo]')).toBeVisible();
  await expect(field(page, '/message').locator('input')).toHaveValue('remember me');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toContainText('Echo: remember me');

  // Restart the backend: the pin is still there.
  await backend.restart();
  await openUi(page, backend);
  await connect(page, 'demo');
  await tab(page, 'history');
  await expect(page.getByTestId('pinned-list')).toHaveAttribute('data-count', /[1-9]/);
  await expect(page.getByTestId('pinned-list').getByTestId('pin-label')).toContainText('my pinned echo');
});

test('history: a tool error (isError) is an error, and the error filter finds it', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await selectTool(page, 'fail');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'tool-error');
  await selectTool(page, 'echo');
  await field(page, '/message').locator('input').fill('fine');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');

  await tab(page, 'history');
  const list = page.getByTestId('history-list');
  const failed = list.locator('[data-testid=history-entry][data-method="tools/call"]').filter({ has: page.getByTestId('history-target').getByText('fail') });
  await expect(failed).toHaveAttribute('data-status', 'error');
  await expect(failed.getByTestId('history-status')).toHaveText('error');
  await page.getByTestId('history-status-filter').click();
  await page.getByRole('option', { name: 'error', exact: true }).click();
  await expect(list.locator('[data-testid=history-entry][data-method="tools/call"]')).toHaveCount(1);
  await expect(failed).toBeVisible();
});

test('history: the client requests a call caused are drawn under it, and the flat view hides them', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  // list-roots makes the demo ask roots/list, which the configured roots answer at once.
  await selectTool(page, 'list-roots');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');

  await tab(page, 'history');
  const entry = page.getByTestId('history-list').locator('[data-testid=history-entry][data-method="tools/call"]').first();
  const trace = entry.getByTestId('history-child-requests');
  await expect(trace.locator('[data-testid=history-child][data-kind=serverRequest]')).toContainText('roots/list');
  await page.getByTestId('history-child-switch').click();
  await expect(page.getByTestId('history-child-switch')).toHaveAttribute('data-checked', 'false');
  await expect(trace).toHaveCount(0);
  await page.getByTestId('history-child-switch').click();
  await expect(trace).toHaveCount(1);
});
