// Prompts: pick a prompt, fill its arguments with completion, get the messages.
import path from 'node:path';
import { REPO, connect, expect, openUi, shot, tab, test } from '../fixtures';

test('prompts: picker, arguments with completion, messages', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await tab(page, 'prompts');

  await page.getByTestId('prompt-select').click();
  await page.getByRole('option', { name: 'Greet someone' }).click();
  await expect(page.getByTestId('prompt-detail')).toHaveAttribute('data-prompt', 'greet');
  const input = page.getByTestId('prompt-detail').locator('[data-testid=form-field][data-field="/name"] input');
  await input.fill('Gr');
  await expect(input).toHaveAttribute('data-suggestions', /[1-9]/);
  await page.getByRole('option', { name: 'Grace' }).click();
  await page.getByTestId('get-prompt').click();
  await expect(page.getByTestId('prompt-result')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('prompt-message').first()).toContainText('Grace');

  // The multimodal prompt: text, an image and an embedded resource.
  await page.getByTestId('prompt-select').click();
  await page.getByRole('option', { name: 'Multimodal showcase' }).click();
  await page.getByTestId('get-prompt').click();
  await expect(page.getByTestId('prompt-result')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('prompt-result').getByTestId('content-image')).toBeVisible();
  await expect(page.getByTestId('prompt-result').getByTestId('content-resource')).toBeVisible();
  await expect(page.getByTestId('copy-json')).toBeVisible();
  await expect(page.getByTestId('copy-messages')).toBeVisible();
  await shot(page, 'prompts');
});

test('prompts: a server that offers no completions is never asked for them', async ({ page, backend }) => {
  const fixture = path.join(REPO, 'crates/mcpscope-server/tests/fixtures/no_completions.mjs');
  await openUi(page, backend);
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { plain: { command: 'node', args: [fixture] } } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText('plain');
  await page.keyboard.press('Escape');
  await connect(page, 'plain');
  await tab(page, 'prompts');
  await page.getByTestId('prompt-select').click();
  await page.getByRole('option', { name: 'summarize' }).click();
  const input = page.getByTestId('prompt-detail').locator('[data-testid=form-field][data-field="/title"] input');
  await input.pressSequentially('notes', { delay: 50 });
  await page.getByTestId('get-prompt').click();
  await expect(page.getByTestId('prompt-message').first()).toContainText('Summarize notes.');

  // History holds the prompts/get, and not one completion/complete (issue 24's newcomer run).
  await tab(page, 'history');
  await expect(page.locator('[data-testid=history-entry][data-method="prompts/get"]')).toHaveCount(1);
  await expect(page.locator('[data-testid=history-entry][data-method="completion/complete"]')).toHaveCount(0);
});
