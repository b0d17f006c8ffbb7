// The Subscriptions panel of Resources (issue 9, 000's "Subscription stream panel"). Modern,
// against the demo over Streamable HTTP: watch demo://counter, the stream acknowledged (id
// reported, the prompts interest not honoured, a re-listen when the filter changed), the counter
// updated and re-read (its content shown in the panel), then closed by the server gracefully (`end-subscriptions`), listened again
// and dropped (a remote close, shown apart), and finally cancelled locally. Legacy, against the
// stdio demo: Subscribe, an update and its re-read, Unsubscribe.
import type { Page } from '@playwright/test';
import { addHttpServer, connect, era, expect, field, openUi, selectTool, shot, tab, test } from '../fixtures';

const COUNTER = 'demo://counter';

/** Add the HTTP demo to the catalog as `demo-http`, pinned to 2026-07-28, and connect it. */
async function addModernDemo(page: Page, url: string) {
  await addHttpServer(page, 'demo-http', url, '2026-07-28');
  await expect(page.locator('[data-testid=server-card][data-server="demo-http"]')).toBeVisible();
  await connect(page, 'demo-http');
}

/** The Resources tab with every page of resources loaded (the demo pages them by two). */
async function resources(page: Page) {
  await tab(page, 'resources');
  await expect(page.getByTestId('resource-item').first()).toBeVisible();
  const more = page.getByTestId('resources-more');
  while (await more.isVisible()) {
    const before = await page.getByTestId('resource-item').count();
    await more.click();
    await expect.poll(() => page.getByTestId('resource-item').count()).toBeGreaterThan(before);
  }
}

function status(page: Page) {
  return page.getByTestId('sub-status').locator('[data-status]');
}

/** Run the demo's `end-subscriptions` with `how`, then come back to Resources. */
async function endSubscriptions(page: Page, how: 'graceful' | 'drop') {
  await tab(page, 'tools');
  await selectTool(page, 'end-subscriptions');
  await field(page, '/how').getByRole('combobox').click();
  await page.getByRole('option', { name: how, exact: true }).click();
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
  await tab(page, 'resources');
}

test('subscriptions, 2026-07-28: a stream opened, changed and closed by the server', async ({ page, backend, demoHttp }) => {
  await openUi(page, backend);
  await addModernDemo(page, demoHttp.url);
  await resources(page);
  const panel = page.getByTestId('subscriptions-panel');
  await expect(panel).toHaveAttribute('data-era', 'modern');
  await expect(panel.getByTestId('sub-no-stream')).toBeVisible();
  // The stream Traffic shows from the connect on is named, not denied (issue 24 item 20).
  await expect(panel.getByTestId('sub-connection-listen')).toHaveAttribute('data-open', 'true');
  await expect(panel.getByTestId('sub-connection-listen')).toContainText('toolsListChanged');

  // Watch the counter: a stream opens and the server acknowledges it.
  // The switches show the stream's filter, which changes when the backend has replaced the
  // stream: click, then wait for them (`check()` wants the state at once and fails when the round
  // trip is slower than its click).
  const watch = panel.locator(`[data-testid=sub-watch][data-uri="${COUNTER}"]`);
  await watch.click();
  await expect(watch).toBeChecked();
  await expect(status(page)).toHaveAttribute('data-status', 'active');
  await expect(panel.getByTestId('sub-id-source')).toHaveAttribute('data-source', 'reported');
  await expect(panel.getByTestId('sub-acknowledged')).toContainText(`resources/updated ${COUNTER}`);
  await expect(panel.getByTestId('sub-relistens')).toHaveText('0');

  // A new interest: the filter is immutable, so the stream is replaced (a re-listen); the demo
  // does not honour prompts/list_changed, and the panel says so.
  await panel.getByTestId('sub-kind-promptsListChanged').click();
  await expect(panel.getByTestId('sub-kind-promptsListChanged')).toBeChecked();
  await expect(panel.getByTestId('sub-stream')).toHaveAttribute('data-number', '2');
  await expect(status(page)).toHaveAttribute('data-status', 'active');
  await expect(panel.getByTestId('sub-relistens')).toHaveText('1');
  await expect(panel.getByTestId('sub-not-honoured')).toHaveText('prompts/list_changed');
  await expect(panel.getByTestId('sub-requested')).toContainText('prompts/list_changed');
  await expect(panel.locator('[data-testid=sub-transition][data-kind=cancelledLocally]')).toContainText('filter changed');

  // The counter changes every second: updated, then re-read (the screen shows its content).
  const updated = panel.locator(`[data-testid=sub-updated][data-uri="${COUNTER}"]`);
  await expect(updated).toHaveAttribute('data-updated', 'true');
  await updated.getByTestId('sub-reread').click();
  await expect(panel.getByTestId('sub-reread-result')).toHaveAttribute('data-uri', COUNTER);
  await expect(panel.getByTestId('sub-reread-result')).toHaveAttribute('data-ok', 'true');
  await expect(panel.getByTestId('sub-reread-result').getByTestId('resource-content')).toContainText(/\d+/);
  await shot(page, 'subscriptions-modern-active');

  // The server ends it gracefully: its complete result.
  await endSubscriptions(page, 'graceful');
  await expect(status(page)).toHaveAttribute('data-status', 'closedByServer');
  await expect(status(page)).toHaveText('Closed by server (graceful)');
  await expect(panel.getByTestId('sub-close-reason')).toContainText('complete');
  await shot(page, 'subscriptions-modern-closed');

  // Listen again, then the server drops the stream: a remote close, never the same entry.
  await panel.getByTestId('sub-listen-again').click();
  await expect(status(page)).toHaveAttribute('data-status', 'active');
  await endSubscriptions(page, 'drop');
  await expect(status(page)).toHaveAttribute('data-status', 'connectionLost');
  await expect(status(page)).toHaveText('Connection lost (remote close)');
  await expect(panel.locator('[data-testid=sub-transition][data-kind=closedByServer]')).toHaveCount(1);
  await expect(panel.locator('[data-testid=sub-transition][data-kind=connectionLost]')).toHaveCount(1);
  await shot(page, 'subscriptions-modern-remote-close');

  // And once more, ended here: Cancel stream.
  await panel.getByTestId('sub-listen-again').click();
  await expect(status(page)).toHaveAttribute('data-status', 'active');
  await panel.getByTestId('sub-cancel').click();
  await expect(status(page)).toHaveAttribute('data-status', 'cancelledLocally');
  await expect(panel.getByTestId('sub-cancel')).toBeDisabled();
  await expect(panel.getByTestId('sub-rejected')).toHaveAttribute('data-count', '0');
});

test('subscriptions, 2025-11-25: subscribe, an update re-read, unsubscribe', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await era(page, '2025-11-25');
  await resources(page);
  const panel = page.getByTestId('subscriptions-panel');
  await expect(panel).toHaveAttribute('data-era', 'legacy');
  const row = panel.locator(`[data-testid=sub-legacy-row][data-uri="${COUNTER}"]`);
  await expect(row).toHaveAttribute('data-subscribed', 'false');
  await row.getByTestId('sub-subscribe').click();
  await expect(row).toHaveAttribute('data-subscribed', 'true');
  await expect(panel.locator('[data-testid=sub-transition][data-kind=subscribed]')).toContainText('the server answered {}');

  const updated = panel.locator(`[data-testid=sub-updated][data-uri="${COUNTER}"]`);
  await expect(updated).toHaveAttribute('data-updated', 'true');
  await updated.getByTestId('sub-reread').click();
  await expect(panel.getByTestId('sub-reread-result')).toHaveAttribute('data-ok', 'true');
  await shot(page, 'subscriptions-legacy');

  await row.getByTestId('sub-unsubscribe').click();
  await expect(row).toHaveAttribute('data-subscribed', 'false');
  await expect(panel.locator('[data-testid=sub-transition][data-kind=unsubscribed]')).toHaveCount(1);
  await expect(panel.getByTestId('sub-rejected')).toHaveAttribute('data-count', '0');
});

test("subscriptions, 2026-07-28: the resource viewer's Subscribe watches through subscriptions/listen", async ({ page, backend, demoHttp }) => {
  await openUi(page, backend);
  await addModernDemo(page, demoHttp.url);
  await resources(page);
  await page.locator(`[data-testid=resource-item][data-uri="${COUNTER}"]`).click();
  await expect(page.getByTestId('resource-view')).toHaveAttribute('data-ok', 'true');
  // There is no resources/subscribe in 2026-07-28: the button acts as the panel's watch toggle.
  const button = page.getByTestId('subscribe');
  await button.click();
  await expect(button).toHaveAttribute('data-subscribed', 'true');
  await expect(button).toHaveText('Unsubscribe');
  const panel = page.getByTestId('subscriptions-panel');
  await expect(panel.locator(`[data-testid=sub-watch][data-uri="${COUNTER}"]`)).toBeChecked();
  await expect(status(page)).toHaveAttribute('data-status', 'active');
  await expect(page.getByTestId('subscribe-error')).toHaveCount(0);
  await button.click();
  await expect(button).toHaveAttribute('data-subscribed', 'false');
  await expect(panel.locator(`[data-testid=sub-watch][data-uri="${COUNTER}"]`)).not.toBeChecked();
});
