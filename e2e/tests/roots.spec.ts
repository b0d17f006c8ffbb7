// Roots edited and then listed by the server (issue 9): the Roots editor in Server Info adds and
// removes roots by path (absolute or from ~, shown as the file:// URI it becomes; issue 24) or by
// URI (a bad one refused under its field, nothing saved), counted on the client's Roots
// capability line; the backend keeps
// them in the catalog entry, and the demo's `list-roots` tool — a legacy `roots/list` request, a
// 2026-07-28 `input_required` round — lists exactly the edited roots on the same connection.
// A legacy session is told with `notifications/roots/list_changed`, seen in Traffic; a modern
// one has no such notification.
import type { Page } from '@playwright/test';
import { connect, era, expect, openUi, selectTool, shot, tab, test } from '../fixtures';

/** Run the demo's `list-roots` and return its result block. */
async function listRoots(page: Page) {
  await tab(page, 'tools');
  await selectTool(page, 'list-roots');
  await page.getByTestId('execute').click();
  const r = page.getByTestId('tool-result');
  await expect(r).toHaveAttribute('data-outcome', 'ok');
  return r;
}

async function openRoots(page: Page) {
  await page.getByTestId('server-menu').click();
  await page.getByTestId('menu-server-info').click();
  const editor = page.getByTestId('server-info-modal').getByTestId('roots-editor');
  await expect(editor).toBeVisible();
  return editor;
}

async function addRoot(page: Page, name: string, path: string) {
  const editor = page.getByTestId('roots-editor');
  await editor.getByLabel('Name').fill(name);
  await editor.getByLabel('Path').fill(path);
  await editor.getByTestId('root-add').click();
}

for (const version of ['2025-11-25', '2026-07-28'] as const) {
  test(`roots edited and then listed by the server, ${version}`, async ({ page, backend }) => {
    await openUi(page, backend);
    await connect(page, 'demo');
    await era(page, version);
    await expect(await listRoots(page)).toContainText('0 roots');

    const editor = await openRoots(page);
    await expect(editor.getByTestId('roots-empty')).toBeVisible();
    // Refused before anything is sent, the reason under the URI field.
    await addRoot(page, 'Web', 'https://example.com/repo');
    await expect(editor.getByText('roots must be file:// URIs')).toBeVisible();
    await addRoot(page, 'Home', 'home/user');
    await expect(editor.getByText('"home/user" is a relative path')).toBeVisible();
    await expect(editor.getByTestId('roots-empty')).toBeVisible();

    // A path: the URI it becomes is shown as it is typed.
    await editor.getByLabel('Path').fill('/home/user/myproject');
    await expect(editor.getByText('→ file:///home/user/myproject')).toBeVisible();
    await addRoot(page, 'Project', '/home/user/myproject');
    await expect(editor.getByTestId('root-row')).toHaveCount(1);
    await expect(editor.getByLabel('Path')).toHaveValue('');
    // ~ is the backend's home directory (this test's HOME: the backend inherits it).
    await addRoot(page, 'Config', '~/myapp');
    await expect(editor.locator(`[data-testid=root-row][data-uri="file://${process.env.HOME}/myapp"]`)).toBeVisible();
    await addRoot(page, 'Documents', 'file:///home/user/Documents');
    await expect(editor.getByTestId('root-row')).toHaveCount(3);
    await editor.getByRole('button', { name: 'Remove root Config' }).click();
    await expect(editor.getByTestId('root-row')).toHaveCount(2);
    await expect(page.locator('[data-testid=capability][data-capability=roots]')).toContainText('Roots (2)');
    await expect(editor.getByTestId('roots-status')).toContainText('Saved in the catalog entry');
    const legacy = version === '2025-11-25';
    await expect(editor.getByTestId('roots-status')).toHaveAttribute('data-list-changed', legacy ? 'true' : 'false');
    if (legacy) await shot(page, 'roots');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('roots-editor')).toBeHidden();

    // The same connection now answers with the edited list.
    const r = await listRoots(page);
    await expect(r).toContainText('2 roots');
    await expect(r).toContainText('file:///home/user/myproject (Project)');
    await expect(r).toContainText('file:///home/user/Documents (Documents)');
    await expect(r).not.toContainText('file:///etc/myapp');

    await tab(page, 'traffic');
    const changed = page.locator('[data-testid=frame-row][data-direction=out][data-method="notifications/roots/list_changed"]');
    if (legacy) await expect(changed.first()).toBeVisible();
    else await expect(changed).toHaveCount(0);
  });
}
