// server-everything (the reference server, from .peers/) imported from a pasted mcp.json.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO, connect, expect, field, openUi, selectTool, shot, test } from '../fixtures';

const SCRIPT = path.join(REPO, 'testenv/peers/everything.sh');
const PEERS = path.join(REPO, '.peers');

test('server-everything: import, connect, call echo', async ({ page, backend }) => {
  test.skip(!existsSync(PEERS), 'the peers are not installed (bash testenv/install.sh)');
  await openUi(page, backend);
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page
    .getByTestId('import-config-text')
    .fill(JSON.stringify({ mcpServers: { everything: { command: 'bash', args: [SCRIPT, 'stdio'], protocolEra: 'legacy' } } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText('everything');
  await page.keyboard.press('Escape');
  await connect(page, 'everything');
  await selectTool(page, 'echo');
  await field(page, '/message').locator('input').fill('hi everything');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await expect(page.getByTestId('tool-result')).toContainText('hi everything');

  // "Run as task" belongs to the tool: pre-set from its execution.taskSupport and explained,
  // and never carried over to the next tool picked (issue 24).
  const asTask = page.getByTestId('run-as-task-toggle');
  await selectTool(page, 'simulate-research-query');
  await expect(page.locator('[data-testid=tool-row][data-tool="simulate-research-query"] [data-badge="task only"]')).toBeVisible();
  await expect(page.getByTestId('run-as-task')).toHaveAttribute('data-support', 'required');
  await expect(asTask).toBeChecked();
  await expect(page.getByTestId('task-support-note')).toContainText('only as a task');
  await shot(page, 'tools-task-required');
  await selectTool(page, 'echo');
  await expect(asTask).not.toBeChecked();
  await asTask.check();
  await selectTool(page, 'get-sum');
  await expect(asTask).not.toBeChecked();
  await shot(page, 'everything');
});
