// Resources: the paginated list, reading a resource, a template with completion and expansion.
import { connect, expect, openUi, shot, tab, test } from '../fixtures';

test('resources: list pages, read, template with completion', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await tab(page, 'resources');

  // The demo pages resources/list by two: load the next page.
  await expect(page.getByTestId('resource-item').first()).toBeVisible();
  const more = page.getByTestId('resources-more');
  if (await more.isVisible()) {
    const before = await page.getByTestId('resource-item').count();
    await more.click();
    await expect.poll(() => page.getByTestId('resource-item').count()).toBeGreaterThan(before);
  }

  await page.locator('[data-testid=resource-item][data-uri="demo://readme"]').click();
  await expect(page.getByTestId('resource-view')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('resource-content')).toContainText('mcpscope demo server');

  await page.locator('[data-testid=resource-item][data-uri="demo://logo.png"]').click();
  await expect(page.locator('[data-testid=resource-content][data-view=image]')).toBeVisible();

  // A template: completion offers names, the URI is expanded, the read shows the content.
  await page.locator('[data-testid=template-item][data-template="demo://greeting/{name}"]').click();
  const input = page.getByTestId('template-form').locator('[data-testid=form-field][data-field="/name"] input');
  await input.fill('Al');
  await expect(input).toHaveAttribute('data-suggestions', /[1-9]/);
  await page.getByRole('option', { name: 'Alice' }).click();
  await expect(page.getByTestId('expanded-uri')).toHaveText('demo://greeting/Alice');
  await page.getByTestId('template-read').click();
  await expect(page.getByTestId('resource-view')).toHaveAttribute('data-uri', 'demo://greeting/Alice');
  await expect(page.getByTestId('resource-content')).toContainText('Alice');
  await shot(page, 'resources');
});
