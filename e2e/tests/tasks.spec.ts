// Tasks (issue 9): the demo server's `research` (about 2 s) run with "Run as task" on Tools, in
// both eras — 2025-11-25 core tasks (params.task with the TTL typed, tasks/list, tasks/result) and
// the 2026-07-28 tasks extension (the server decides; no tasks/list) — then followed on the Tasks
// screen by the backend's poller until it shows completed with its result; a second one
// cancelled from its detail pane; the ended ones dismissed, one by one and with Clear History.
import type { Page } from '@playwright/test';
import { connect, expect, field, openUi, selectTool, shot, tab, test, era } from '../fixtures';

/** Run `research` as a task from Tools; the task id its answer names. */
async function runAsTask(page: Page, topic: string, ttl: string): Promise<string> {
  await tab(page, 'tools');
  await selectTool(page, 'research');
  await field(page, '/topic').locator('input').fill(topic);
  const toggle = page.getByTestId('run-as-task-toggle');
  if (!(await toggle.isChecked())) await toggle.check();
  await page.getByTestId('task-ttl').fill(ttl);
  await page.getByTestId('execute').click();
  const tools = page.getByTestId('screen-tools');
  await expect(tools.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  const created = tools.getByTestId('task-created');
  await expect(created).toBeVisible();
  const id = await created.getAttribute('data-task-id');
  expect(id).toBeTruthy();
  return id!;
}

async function journey(page: Page, version: '2025-11-25' | '2026-07-28', tag: string) {
  await era(page, version);
  const id = await runAsTask(page, 'otters', '45000');
  await shot(page, `tasks-run-as-task-${tag}`);
  await tab(page, 'tasks');
  const row = page.locator(`[data-testid=task-row][data-task-id="${id}"]`);
  await expect(row).toBeVisible();
  await row.click();
  const detail = page.locator(`[data-testid=task-detail][data-task-id="${id}"]`);
  // The backend polls at the server's 500 ms; the research takes about 2 s.
  await expect(detail).toHaveAttribute('data-status', 'completed', { timeout: 20_000 });
  await expect(row).toHaveAttribute('data-status', 'completed');
  await expect(page.getByTestId('ended-tasks')).toContainText('Completed Tasks (1)');
  await expect(detail.getByTestId('task-result')).toContainText('Research on otters');
  await expect(detail.getByTestId('task-detail-polling')).toContainText('ended');
  await expect(row.getByTestId('task-timing')).toContainText(/duration \d+s/);
  if (version === '2025-11-25') {
    await expect(detail.getByTestId('task-fields')).toContainText('45 s');
    await expect(page.getByTestId('tasks-support')).toContainText('tasks/list yes');
  } else {
    await expect(page.getByTestId('tasks-support')).toContainText('no tasks/list');
  }
  await shot(page, `tasks-completed-${tag}`);

  // A second one, cancelled while it works.
  const second = await runAsTask(page, 'the void', '45000');
  await tab(page, 'tasks');
  const row2 = page.locator(`[data-testid=task-row][data-task-id="${second}"]`);
  await row2.click();
  const detail2 = page.locator(`[data-testid=task-detail][data-task-id="${second}"]`);
  await expect(row2.getByTestId('task-timing')).toContainText(/elapsed \d+s/);
  // A 2025-11-25 task reports progress on its call's token after the call returned.
  if (version === '2025-11-25') await expect(row2.getByTestId('task-progress')).toHaveAttribute('data-pct', /^[2468]0$/);
  await expect(detail2.getByTestId('task-cancel')).toBeEnabled();
  await detail2.getByTestId('task-cancel').click();
  await expect(detail2).toHaveAttribute('data-status', 'cancelled', { timeout: 20_000 });
  await expect(row2).toHaveAttribute('data-status', 'cancelled');
  await expect(detail2.getByTestId('task-cancel')).toBeDisabled();
  // A cancelled task is not a failed one, whatever tasks/result answered for it.
  await expect(detail2.getByTestId('task-error')).toHaveCount(0);
  await shot(page, `tasks-cancelled-${tag}`);

  // Refresh: tasks/list on 2025-11-25, the backend's own re-read with tasks/get on 2026-07-28.
  await page.getByTestId('tasks-refresh').click();
  await expect(page.getByTestId('tasks-error')).toHaveCount(0);
  await expect(row).toHaveAttribute('data-status', 'completed');

  // An id the server does not know: its error, with the JSON-RPC code.
  await page.getByTestId('task-id-input').fill('no-such-task');
  await page.getByTestId('task-id-get').click();
  await expect(page.getByTestId('tasks-error')).toContainText('-32602');

  // Dismiss one ended task, then Clear History; a Refresh does not bring them back.
  await row.getByTestId('task-dismiss').click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('ended-tasks')).toContainText('Completed Tasks (1)');
  await page.getByTestId('tasks-clear-history').click();
  await expect(row2).toHaveCount(0);
  await expect(page.getByTestId('ended-tasks')).toContainText('Completed Tasks (0)');
  await page.getByTestId('tasks-refresh').click();
  await expect(page.getByTestId('tasks-error')).toHaveCount(0);
  await expect(page.getByTestId('ended-tasks')).toContainText('Completed Tasks (0)');
}

test('tasks, 2025-11-25: run as a task with a TTL, completed with its result, one cancelled', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await journey(page, '2025-11-25', 'legacy');
});

test('tasks, 2026-07-28: the server runs it as a task, completed with its result, one cancelled', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await journey(page, '2026-07-28', 'modern');
});
