// Tool quality badges (issue 9, 000's "Quality badges"): a real stdio server whose tools are
// wrong in every way the lint names (crates/mcpscope-server/tests/fixtures/bad_tools.mjs, Node,
// 2025-11-25). Each tool with findings gets a count in the sidebar — red when any is a spec
// error, amber for warnings only — with the list on hover and on keyboard focus; a clean tool
// gets none; the server's total is in the sidebar header; a finding that quotes markup from the
// server shows it as text and runs nothing.
import type { Locator, Page } from '@playwright/test';
import path from 'node:path';
import { REPO, connect, expect, openUi, shot, test } from '../fixtures';

const FIXTURE = path.join(REPO, 'crates/mcpscope-server/tests/fixtures/bad_tools.mjs');

async function importServer(page: Page, name: string, entry: object) {
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { [name]: entry } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText(name);
  await page.keyboard.press('Escape');
}

const badgeOf = (page: Page, tool: string) => page.locator(`[data-testid=tool-row][data-tool="${tool}"]`).first().getByTestId('quality-badge');

/** The colour Mantine paints a filled badge of `color` with, resolved in this page. */
async function filled(page: Page, color: 'red' | 'orange') {
  return page.evaluate((c) => {
    const probe = document.createElement('div');
    probe.style.backgroundColor = `var(--mantine-color-${c}-filled)`;
    document.body.appendChild(probe);
    const bg = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return bg;
  }, color);
}

const background = (l: Locator) => l.evaluate((el) => getComputedStyle(el).backgroundColor);

test('a tool with badges: the count, the colour, the list on hover and on focus', async ({ page, backend }) => {
  await openUi(page, backend);
  await importServer(page, 'bad-tools', { command: 'node', args: [FIXTURE], protocolEra: 'legacy' });
  await connect(page, 'bad-tools');
  await expect(page.getByTestId('tools-count')).toHaveAttribute('data-count', '11');

  // The server's total in the sidebar header.
  const total = page.getByTestId('quality-total');
  await expect(total).toContainText(/Quality: \d+ errors, \d+ warnings in \d+ tools/);
  // bad name!, the second twice, array_input, not_json_schema, unportable (a bare true property).
  await expect(total).toHaveAttribute('data-errors', '5');

  // A clean tool has no badge; both tools named "twice" have rows, only the second is red.
  await expect(badgeOf(page, 'good_tool')).toHaveCount(0);
  const twice = page.locator('[data-testid=tool-row][data-tool="twice"]');
  await expect(twice).toHaveCount(2);
  await expect(twice.nth(0).getByTestId('quality-badge')).toHaveCount(0);
  await expect(twice.nth(1).getByTestId('quality-badge')).toHaveAttribute('data-severity', 'error');

  // Red for a spec error, amber for warnings only: the count and the colour.
  const red = badgeOf(page, 'bad name!');
  await expect(red).toHaveAttribute('data-severity', 'error');
  await expect(red).toHaveText('1');
  expect(await background(red)).toBe(await filled(page, 'red'));
  const amber = badgeOf(page, 'undocumented');
  await expect(amber).toHaveAttribute('data-severity', 'warning');
  await expect(amber).toHaveText('1');
  expect(await background(amber)).toBe(await filled(page, 'orange'));
  expect(await filled(page, 'orange')).not.toBe(await filled(page, 'red'));

  // The list on hover: code, message, pointer.
  await red.hover();
  const list = page.getByTestId('quality-list').filter({ visible: true });
  await expect(list).toHaveCount(1);
  const finding = list.getByTestId('quality-finding');
  await expect(finding).toHaveAttribute('data-code', 'name-characters');
  await expect(finding).toContainText('Error · name-characters');
  await expect(finding).toContainText("' ', '!'");
  await expect(finding).toContainText('/name');
  await shot(page, 'badges-hover');

  // A tool with errors and warnings: the count of both, red, each in the list.
  await page.mouse.move(0, 0);
  const mixed = badgeOf(page, 'unportable');
  await expect(mixed).toHaveAttribute('data-severity', 'error');
  await expect(page.getByTestId('quality-list').filter({ visible: true })).toHaveCount(0);
  await mixed.hover();
  const mixedList = page.getByTestId('quality-list').filter({ visible: true });
  await expect(mixedList.locator('[data-code=type-union]')).toBeVisible();
  const codes = await mixedList.getByTestId('quality-finding').evaluateAll((els) => els.map((e) => e.getAttribute('data-code')));
  expect(codes).toEqual(expect.arrayContaining(['invalid-input-schema', 'boolean-schema', 'type-union']));
  await expect(mixed).toHaveText(String(codes.length));

  // On keyboard focus too (no mouse over it).
  await page.mouse.move(0, 0);
  await expect(page.getByTestId('quality-list').filter({ visible: true })).toHaveCount(0);
  // Tab from the tool's own row button: the badge is the next stop, focused by the keyboard.
  await page.locator('[data-testid=tool-item][data-tool="undocumented"]').focus();
  await page.keyboard.press('Tab');
  await expect(amber).toBeFocused();
  await expect(page.getByTestId('quality-list').filter({ visible: true }).getByTestId('quality-finding')).toHaveAttribute('data-code', 'missing-description');
  await expect(amber).toHaveAttribute('aria-label', 'undocumented: 1 warning');

  // Server text quoted in a finding is text: the markup shows, nothing runs.
  await amber.blur();
  await expect(page.getByTestId('quality-list').filter({ visible: true })).toHaveCount(0);
  const hostile = badgeOf(page, 'hostile_text');
  await hostile.hover();
  const quoted = page.getByTestId('quality-list').filter({ visible: true });
  await expect(quoted).toContainText('<img src=x onerror=');
  await expect(quoted.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __badgeXss?: number }).__badgeXss)).toBeUndefined();
});
