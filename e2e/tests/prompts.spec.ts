// Prompts: pick a prompt, fill its arguments with completion, get the messages.
import { connect, expect, openUi, shot, tab, test } from '../fixtures';

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
