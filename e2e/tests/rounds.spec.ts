// Requests that take several questions (issue 9): the demo's `onboard` asks in three
// `input_required` rounds (2026-07-28), the second with three keys walked as ONE dialog (key 1 of
// 3, Back and Next, the answers sent together) and retried automatically, with "Round N of at
// most 10" shown; History nests each question under its request by round with its offset, and
// Replay runs the call again from round 1 (it asks again, it does not resend the old answers);
// Decline and Cancel inside the walk-through; the round dialog in the modal when the call is off
// screen; and 2025-11-25's `-32042` URL-elicitation-required error of `elicit-url-required` as a
// URL card whose completion is shown before the call is retried; and the engine's round limit
// said plainly when the testkit's modern server asks again forever; a prompts/get and a
// resources/read that ask, answered inline under the running get/read.
import type { Locator, Page } from '@playwright/test';
import path from 'node:path';
import { REPO, connect, era, expect, openUi, selectTool, shot, tab, test } from '../fixtures';

const TESTKIT = path.join(REPO, 'target/debug/mcpscope-testkit');

const ONBOARDED = 'onboarded Ada to team apps (ada@example.com); newsletter: true; confirmed: true';

/** The visible step of the round dialog (every key stays mounted, the others hidden). */
function step(dialog: Locator) {
  return dialog.locator('[data-testid=interaction]:not([hidden])');
}

async function startOnboard(page: Page) {
  await selectTool(page, 'onboard');
  await page.getByTestId('execute').click();
  const first = page.getByTestId('request-queue-slot').getByTestId('interaction');
  await expect(first).toBeVisible();
  return first;
}

/** Round 1: the name, alone on its card. */
async function answerRound1(page: Page) {
  const card = await startOnboard(page);
  await expect(page.getByTestId('pending-round')).toHaveText('Round 1 of at most 10');
  await expect(card.getByTestId('interaction-title')).toHaveText('Operation Needs Input');
  await expect(card.getByTestId('interaction-identity')).toContainText('round 1 of at most 10');
  await card.getByLabel('Full name').fill('Ada');
  await card.getByTestId('elicit-accept').click();
}

/** The round dialog of round 2, once all three keys arrived. */
async function round2(page: Page) {
  const dialog = page.getByTestId('request-queue-slot').getByTestId('round-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAttribute('data-keys', '3');
  await expect(page.getByTestId('pending-round')).toHaveText('Round 2 of at most 10');
  await expect(page.getByTestId('pending-requests-title')).toHaveText('[!] Pending Client Requests (3)');
  await expect(dialog.getByTestId('round-key')).toHaveText(['email', 'newsletter', 'team']);
  return dialog;
}

test('a three-round input_required tool answered in the dialog and retried automatically; History nests it; Replay asks again', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2026-07-28');
  await answerRound1(page);

  // Round 2: three keys, one dialog, walked one at a time.
  const dialog = await round2(page);
  await expect(dialog.getByTestId('round-step')).toHaveText('key 1 of 3');
  await expect(step(dialog).getByTestId('elicit-accept')).toHaveText('Next');
  await step(dialog).getByLabel('Email').fill('ada@example.com');
  await step(dialog).getByTestId('elicit-accept').click();
  await expect(dialog.getByTestId('round-step')).toHaveText('key 2 of 3');
  await step(dialog).getByLabel('Newsletter').check();
  // Back keeps what was typed; Next › returns to where we were.
  await dialog.getByTestId('round-back').click();
  await expect(dialog.getByTestId('round-step')).toHaveText('key 1 of 3');
  await expect(step(dialog).getByLabel('Email')).toHaveValue('ada@example.com');
  await dialog.getByTestId('round-next').click();
  await expect(step(dialog).getByLabel('Newsletter')).toBeChecked();
  await step(dialog).getByTestId('elicit-accept').click();
  await expect(dialog.getByTestId('round-step')).toHaveText('key 3 of 3');
  await step(dialog).getByLabel('Team').selectOption({ label: 'apps' });
  await expect(step(dialog).getByTestId('elicit-accept')).toHaveText('Submit all');
  // Nothing was sent yet: the call still waits on all three questions.
  await expect(page.getByTestId('pending-requests')).toHaveAttribute('data-count', '3');
  await expect(page.getByTestId('tool-result')).toHaveCount(0);
  await shot(page, 'rounds-walkthrough');
  await step(dialog).getByTestId('elicit-accept').click();

  // Round 3, then the result: the engine retried after each round by itself.
  const confirm = page.getByTestId('request-queue-slot').getByTestId('interaction');
  await expect(page.getByTestId('pending-round')).toHaveText('Round 3 of at most 10');
  await expect(confirm.getByLabel('Create the account')).toBeChecked();
  await confirm.getByTestId('elicit-accept').click();
  const result = page.getByTestId('tool-result');
  await expect(result).toHaveAttribute('data-outcome', 'ok');
  await expect(result).toContainText(ONBOARDED);
  await shot(page, 'rounds-result');

  // History: the call with its five questions, by round, each with its offset.
  await tab(page, 'history');
  const entry = page.locator('[data-testid=history-entry][data-method="tools/call"]').filter({ hasText: 'onboard' }).first();
  await entry.getByTestId('history-toggle').click();
  const rounds = entry.getByTestId('history-round');
  await expect(rounds).toHaveCount(3);
  await expect(rounds.getByTestId('history-round-title')).toHaveText([/input_required round 1$/, /input_required round 2 \(3 keys\)$/, /input_required round 3$/]);
  await expect(rounds.nth(1).getByTestId('history-child')).toHaveCount(3);
  await expect(entry.locator('[data-testid=history-child][data-key=name] [data-testid=history-child-answer]')).toHaveText('accepted: accept {"name":"Ada"}');
  for (const offset of await entry.getByTestId('history-child-offset').allTextContents()) expect(offset).toMatch(/^\+\d+ms$/);
  await shot(page, 'rounds-history');

  // Replay: a new run from round 1 that asks again.
  await entry.getByTestId('replay').click();
  await expect(page.getByTestId('screen-tools')).toBeVisible();
  await expect(page.locator('[data-testid=tool-detail][data-tool="onboard"]')).toBeVisible();
  await page.getByTestId('execute').click();
  const again = page.getByTestId('request-queue-slot').getByTestId('interaction');
  await expect(page.getByTestId('pending-round')).toHaveText('Round 1 of at most 10');
  await expect(again.getByLabel('Full name')).toHaveValue('');
  await again.getByTestId('elicit-decline').click();
  await expect(result).toContainText('onboarding stopped: "name" was answered decline');
});

test('walk-through: Decline and Cancel answer their key and move on; the round goes to the modal off screen', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2026-07-28');
  await answerRound1(page);
  await round2(page);

  // Off screen (another tab), the whole round is one dialog in the modal.
  await tab(page, 'resources');
  const modal = page.getByTestId('pending-modal-body');
  const dialog = modal.getByTestId('round-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('round-step')).toHaveText('key 1 of 3');
  await step(dialog).getByTestId('elicit-decline').click();
  await expect(dialog.getByTestId('round-step')).toHaveText('key 2 of 3');
  await expect(dialog.locator('[data-testid=round-key][data-key=email]')).toHaveAttribute('data-answered', 'true');
  await step(dialog).getByTestId('elicit-cancel').click();
  await expect(dialog.getByTestId('round-step')).toHaveText('key 3 of 3');
  await shot(page, 'rounds-modal');
  await step(dialog).getByTestId('elicit-accept').click();
  await expect(page.getByTestId('pending-modal-body')).toHaveCount(0);
  await tab(page, 'tools');
  await expect(page.getByTestId('tool-result')).toContainText('onboarding stopped: "email" was answered decline');
});

test('-32042 (2025-11-25): the URL from the error as a card, its completion shown, then the call retried', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2025-11-25');
  await selectTool(page, 'elicit-url-required');
  await page.getByTestId('execute').click();
  const result = page.getByTestId('tool-result');
  await expect(result).toHaveAttribute('data-outcome', 'protocol-error');
  const card = page.getByTestId('url-required');
  await expect(card).toBeVisible();
  const item = card.getByTestId('url-required-item');
  await expect(item).toHaveCount(1);
  await expect(item.getByTestId('elicit-url-domain')).toHaveText('example.com');
  await expect(item.getByTestId('elicit-url')).toContainText('/demo-consent?elicitation=demo-consent-required-');
  await expect(item.getByTestId('elicit-id')).toContainText('demo-consent-required-');
  await expect(item.getByTestId('elicit-open')).toHaveAttribute('href', /^https:\/\/example\.com\/demo-consent\?elicitation=/);
  await expect(item.getByTestId('elicit-open')).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(item.getByTestId('elicit-copy-url')).toBeVisible();
  // The demo completes the consent by itself 1.5 s later and says so.
  await expect(item).toHaveAttribute('data-completed', 'true');
  await expect(item.getByTestId('elicit-status')).toHaveAttribute('data-status', 'completed');
  await shot(page, 'rounds-url-required');
  await card.getByTestId('url-required-retry').click();
  await expect(result).toHaveAttribute('data-outcome', 'ok');
  await expect(result).toContainText('completed); the call went through');
  await expect(page.getByTestId('url-required')).toHaveCount(0);
});

test('the round limit: a server that never completes is stopped after 10 rounds, and the result says so plainly', async ({ page, backend }) => {
  await openUi(page, backend);
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(JSON.stringify({ mcpServers: { forever: { command: TESTKIT, args: ['modern'], protocolEra: 'modern' } } }));
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText('forever');
  await page.keyboard.press('Escape');
  await connect(page, 'forever');
  // `ask-forever` asks for a name again on every retry: ten rounds answered, then the engine
  // stops instead of retrying an eleventh time.
  await selectTool(page, 'ask-forever');
  await page.getByTestId('execute').click();
  for (let round = 1; round <= 10; round++) {
    await expect(page.getByTestId('pending-round')).toHaveText(`Round ${round} of at most 10`);
    const card = page.getByTestId('request-queue-slot').getByTestId('interaction');
    await expect(card.getByTestId('interaction-message')).toContainText(`Round ${round}:`);
    await card.getByLabel('Name').fill('Ada');
    await card.getByTestId('elicit-accept').click();
  }
  const notice = page.getByTestId('rounds-exceeded');
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('Stopped after 10 input_required rounds');
  await expect(notice).toContainText('mcpscope answers at most 10 rounds per request');
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'protocol-error');
  await shot(page, 'rounds-limit');
});

test('prompts/get and resources/read ask inline under the running get/read, not in the modal', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2026-07-28');

  await tab(page, 'prompts');
  await page.getByTestId('prompt-select').click();
  await page.getByRole('option', { name: 'Ask for a topic' }).click();
  await page.getByTestId('get-prompt').click();
  const prompts = page.getByTestId('screen-prompts');
  const asked = prompts.getByTestId('pending-requests').getByTestId('interaction');
  await expect(asked).toBeVisible();
  await expect(prompts.getByTestId('pending-round')).toHaveText('Round 1 of at most 10');
  await expect(page.getByTestId('pending-modal-body')).toHaveCount(0);
  await asked.getByLabel('Topic').selectOption({ label: 'tea' });
  await shot(page, 'rounds-prompt-inline');
  await asked.getByTestId('elicit-accept').click();
  await expect(page.getByTestId('prompt-result')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('prompt-message').first()).toContainText('Write three sentences about tea.');

  await tab(page, 'resources');
  await page.locator('[data-testid=template-item][data-template="demo://files/{path}"]').click();
  await page.getByTestId('template-form').locator('[data-testid=form-field][data-field="/path"] input').fill('private/notes.txt');
  await page.getByTestId('template-read').click();
  const resources = page.getByTestId('screen-resources');
  const allow = resources.getByTestId('pending-requests').getByTestId('interaction');
  await expect(allow).toBeVisible();
  await expect(page.getByTestId('pending-modal-body')).toHaveCount(0);
  await allow.getByLabel('Allow the read').check();
  await allow.getByTestId('elicit-accept').click();
  await expect(page.getByTestId('resource-view')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('resource-content')).toContainText('the answer is 42');
});
