// Tools: fill a generated form, validate, call a tool, see progress and cancel, rich results.
import path from 'node:path';
import { REPO, addHttpServer, connect, expect, field, openUi, selectTool, shot, test } from '../fixtures';

test('tools: generated form, validate, execute, progress and cancel, results', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');

  // Validate only: a missing required argument shows an error under its field.
  await selectTool(page, 'echo');
  await page.getByTestId('validate').click();
  await expect(page.getByTestId('validation-result')).toHaveAttribute('data-valid', 'false');
  await expect(field(page, '/message')).toContainText('required');

  // Fill the generated form and call the tool.
  await field(page, '/message').locator('input').fill('hello from the browser');
  await page.getByTestId('validate').click();
  await expect(page.getByTestId('validation-result')).toHaveAttribute('data-valid', 'true');
  await page.getByTestId('execute').click();
  const result = page.getByTestId('tool-result');
  await expect(result).toHaveAttribute('data-outcome', 'ok');
  await expect(result).toContainText('Echo: hello from the browser');

  // Save the request; it is listed in the Saved tab and loads back into the form.
  await page.getByTestId('save-request').click();
  await page.getByTestId('save-name').fill('greeting');
  await page.getByTestId('save-confirm').click();
  await page.getByTestId('saved-tab').click();
  await expect(page.locator('[data-testid=saved-item][data-name=greeting]')).toBeVisible();
  await page.locator('[data-testid=saved-item][data-name=greeting]').getByText('greeting').first().click();
  await expect(field(page, '/message').locator('input')).toHaveValue('hello from the browser');

  // Form ↔ JSON keeps the values.
  await page.getByTestId('form-mode').getByText('JSON').click();
  await expect(page.getByTestId('arguments-json')).toHaveValue(/hello from the browser/);
  await page.getByTestId('form-mode').getByText('Form').click();
  await expect(field(page, '/message').locator('input')).toHaveValue('hello from the browser');

  // structuredContent checked against outputSchema.
  await selectTool(page, 'get-weather');
  await field(page, '/city').locator('input').fill('Paris');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await page.getByTestId('tool-result').getByRole('tab', { name: 'structuredContent' }).click();
  await expect(page.getByTestId('output-schema-check')).toHaveAttribute('data-valid', 'true');

  // Images and isError.
  await selectTool(page, 'get-image');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('content-image')).toBeVisible();
  await selectTool(page, 'fail');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'tool-error');

  // Progress and cancel: a long call reports steps; Cancel ends it.
  await selectTool(page, 'slow');
  await field(page, '/durationMs').locator('input').fill('20000');
  await field(page, '/steps').locator('input').fill('20');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('progress')).toHaveAttribute('data-has-progress', 'true');
  await expect(page.getByTestId('progress-message')).toContainText('step');
  await shot(page, 'tools-progress');
  await page.getByTestId('cancel').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'cancelled');

  // Audio result.
  await selectTool(page, 'get-audio');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('content-audio')).toBeVisible();

  // tools/list_changed (a legacy notification; modern servers announce it on subscriptions/listen):
  // switch to 2025-11-25, then the indicator appears and Refresh brings the new tool.
  const screens = page.getByTestId('screens');
  const resets = Number(await screens.getAttribute('data-reset'));
  await page.getByTestId('protocol-select').click();
  await page.getByRole('option', { name: '2025-11-25' }).click();
  await expect(screens).toHaveAttribute('data-reset', String(resets + 1));
  await expect(page.getByTestId('top-bar').getByTestId('status')).toHaveAttribute('data-status', 'connected');
  await expect(page.getByTestId('tools-count')).not.toHaveAttribute('data-count', '0');
  await selectTool(page, 'toggle-extra-tool');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await expect(page.getByTestId('list-changed')).toBeVisible();
  // The list on screen is what Validate judges against, Refresh or not (issue 24, item 14's rule).
  await page.getByTestId('validate').click();
  await expect(page.getByTestId('validation-result')).toHaveAttribute('data-valid', 'true');
  await page.getByTestId('list-changed').getByRole('button', { name: 'Refresh Now' }).click();
  await expect(page.getByTestId('list-changed')).toHaveCount(0);
  await page.getByTestId('tool-search').fill('extra-tool');
  await expect(page.locator('[data-testid=tool-item][data-tool="extra-tool"]')).toBeVisible();

  // Back to a filled form for the screenshot.
  await selectTool(page, 'get-weather');
  await field(page, '/city').locator('input').fill('Lisbon');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await shot(page, 'tools');
});

test('tools: a reconnect lists afresh, and each tool shows only its own last result', async ({ page, backend, demoHttp }) => {
  await openUi(page, backend);
  await addHttpServer(page, 'demo-http', demoHttp.url);
  await connect(page, 'demo-http');
  const count = Number(await page.getByTestId('tools-count').getAttribute('data-count'));

  // A result names its tool and call; another tool shows its own last result, or none.
  await selectTool(page, 'log-every-level');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await expect(page.getByTestId('result-of')).toHaveAttribute('data-tool', 'log-every-level');
  await expect(page.getByTestId('result-of')).toHaveAttribute('data-history-id', /\d+/);
  await selectTool(page, 'echo');
  await expect(page.getByTestId('tool-result')).toHaveCount(0);
  await expect(page.getByTestId('tool-result-empty')).toBeVisible();
  await selectTool(page, 'log-every-level');
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  // A call still running belongs to its tool: another tool says which one runs, and the result
  // lands under the tool that was called.
  await selectTool(page, 'slow');
  await field(page, '/durationMs').locator('input').fill('1500');
  await field(page, '/steps').locator('input').fill('3');
  await page.getByTestId('execute').click();
  await selectTool(page, 'echo');
  await expect(page.getByTestId('executing')).toHaveAttribute('data-tool', 'slow');
  await expect(page.getByTestId('tool-result-empty')).toBeVisible();
  await selectTool(page, 'slow');
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await expect(page.getByTestId('result-of')).toHaveAttribute('data-tool', 'slow');

  // The server gains a tool while we are away: reconnecting lists afresh, with no Refresh, and
  // Validate only judges against that same list.
  await selectTool(page, 'toggle-extra-tool');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await page.getByTestId('disconnect').click();
  await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'list');
  await connect(page, 'demo-http');
  await expect(page.getByTestId('tools-count')).toHaveAttribute('data-count', String(count + 1));
  await selectTool(page, 'extra-tool');
  await page.getByTestId('validate').click();
  await expect(page.getByTestId('validation-result')).toHaveAttribute('data-valid', 'true');
});

test('tools: a 3 MB structured result is checked against its outputSchema where it is stored', async ({ page, backend }) => {
  const fixture = path.join(REPO, 'crates/mcpscope-server/tests/fixtures/big_structured.mjs');
  await openUi(page, backend);
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { big: { command: 'node', args: [fixture] } } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText('big');
  await page.keyboard.press('Escape');
  await connect(page, 'big');
  await selectTool(page, 'big-structured');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await page.getByTestId('tool-result').getByRole('tab', { name: 'structuredContent' }).click();
  await expect(page.getByTestId('output-schema-check')).toHaveAttribute('data-valid', 'true');

  // Server Info from the catalog card counts what the lists hold, as the header menu's does.
  await page.getByTestId('home').click();
  await page.locator('[data-testid=server-card][data-server=big]').getByTestId('server-info').click();
  await expect(page.getByTestId('server-info-modal').locator('[data-testid=capability][data-capability=tools]')).toContainText('Tools (1)');
});
