// OAuth in the browser: the testkit's authorization server with a consent page and JWT access
// tokens protects an MCP server. Connecting asks for a login (the sign-in dialog, the consent page
// in a new tab, the backend's /oauth/callback), a tool that needs one more scope steps up, Server
// Info shows the grant and decodes the JWT, Traffic shows the OAuth exchanges without the token,
// Forget tokens drops it. Plus: a callback with an unknown state is refused.
import type { Page } from '@playwright/test';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO, TOKEN, expect, field, openUi, selectTool, shot, startAndWait, stopChild, tab, test } from '../fixtures';

const TESTKIT = process.env.MCPSCOPE_TESTKIT_BIN ?? path.join(REPO, 'target/debug/mcpscope-testkit');
const NAME = 'secured';

/** Click "Open authorization page", approve on the consent page in the new tab, land on the callback. */
async function approveInPopup(page: Page, shotName?: string) {
  const popupOpened = page.context().waitForEvent('page');
  await page.getByTestId('auth-open').click();
  const popup = await popupOpened;
  await popup.waitForLoadState('domcontentloaded');
  await expect(popup.locator('#approve')).toBeVisible();
  // The callback page closes itself after a moment when the browser lets it: read it at once.
  const callback = popup.waitForResponse((r) => r.url().includes('/oauth/callback?'));
  await popup.locator('#approve').click();
  const answer = await callback;
  expect(answer.status()).toBe(200);
  expect(await answer.text()).toContain('Authorization received');
  if (shotName && !popup.isClosed()) await shot(popup, shotName).catch(() => undefined);
  if (!popup.isClosed()) await popup.close();
}

/** The sign-in dialog has finished its opening transition (for screenshots). */
async function dialogSettled(page: Page) {
  await expect(page.locator('.mantine-Modal-content').filter({ has: page.getByTestId('auth-dialog') })).toHaveCSS('opacity', '1');
}

test('oauth: sign in from the browser, step up, inspect and forget the token', async ({ page, backend }) => {
  test.skip(!existsSync(TESTKIT), 'build the testkit first (cargo build -p mcpscope-testkit)');
  test.setTimeout(180_000);
  const { child: as, match } = await startAndWait(
    TESTKIT,
    ['oauth', '--consent', '--jwt', '--tool-scope', 'admin-echo=mcp:admin'],
    {},
    'stdout',
    /(http:\/\/127\.0\.0\.1:\d+\/mcp)\s*\n/,
    'mcpscope-testkit oauth',
  );
  const mcpUrl = match[1];
  try {
    await openUi(page, backend);

    // Add the protected server (HTTP, 2025-11-25).
    await page.getByTestId('add-server-menu').click();
    await page.getByTestId('add-manually').click();
    await page.getByTestId('server-form-name').fill(NAME);
    await page.getByTestId('server-form-transport').getByText('Streamable HTTP').click();
    await page.getByTestId('server-form-url').fill(mcpUrl);
    await expect(page.getByTestId('server-form-oauth')).toBeVisible();
    await page.getByTestId('server-form-protocol').click();
    await page.getByRole('option', { name: '2025-11-25' }).click();
    await page.getByTestId('server-form-save').click();
    const card = page.locator(`[data-testid=server-card][data-server="${NAME}"]`);
    await expect(card).toBeVisible();

    // Connect: the server answers 401, the sign-in dialog asks for a login.
    await card.getByTestId('server-toggle').click();
    const dialog = page.getByTestId('auth-dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog).toHaveAttribute('data-server', NAME);
    await expect(dialog).toHaveAttribute('data-reason', 'login');
    await expect(page.getByTestId('auth-reason')).toContainText(`${NAME} needs you to sign in`);
    await expect(page.getByTestId('auth-issuer')).toContainText('/as');
    await expect(page.getByTestId('auth-open')).toHaveAttribute('target', '_blank');
    await dialogSettled(page);
    await shot(page, 'oauth-dialog');
    await approveInPopup(page, 'oauth-callback');

    // The connect goes on with the token.
    await expect(page.getByTestId('auth-dialog')).toHaveCount(0);
    await expect(page.getByText(`Authorized ${NAME}`).first()).toBeVisible();
    await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'server');
    await expect(page.getByTestId('server-menu')).toHaveAttribute('data-server', NAME);
    await expect(page.getByTestId('top-bar').getByTestId('status')).toHaveAttribute('data-status', 'connected');
    await expect(page.getByTestId('tools-count')).toHaveAttribute('data-count', '2');

    // A tool the granted scopes cover.
    await selectTool(page, 'echo');
    await field(page, '/text').locator('input').fill('hello with a token');
    await page.getByTestId('execute').click();
    await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
    await expect(page.getByTestId('tool-result')).toContainText('hello with a token');

    // A tool that needs mcp:admin: 403 insufficient_scope, a step-up login.
    await selectTool(page, 'admin-echo');
    await field(page, '/text').locator('input').fill('hello as admin');
    await page.getByTestId('execute').click();
    await expect(dialog).toBeVisible();
    await expect(dialog).toHaveAttribute('data-reason', 'step-up');
    await expect(page.getByTestId('auth-reason')).toContainText(`${NAME} needs more permissions`);
    const admin = page.locator('[data-testid=auth-scope][data-scope="mcp:admin"]');
    await expect(admin).toBeVisible();
    await expect(admin).toHaveAttribute('data-new', 'true');
    await dialogSettled(page);
    await shot(page, 'oauth-step-up');
    await approveInPopup(page);
    await expect(page.getByTestId('auth-dialog')).toHaveCount(0);
    await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');
    await expect(page.getByTestId('tool-result')).toContainText('hello as admin');

    // Server Info: the grant, and the JWT decoded.
    await page.getByTestId('server-menu').click();
    await page.getByTestId('menu-server-info').click();
    const panel = page.getByTestId('auth-panel');
    await expect(panel).toBeVisible();
    await expect(panel).toHaveAttribute('data-state', 'authorized');
    await expect(panel.locator('[data-testid=auth-granted-scope][data-scope="mcp:admin"]')).toBeVisible();
    await expect(panel.getByTestId('auth-refresh')).toHaveText('yes');
    // The access token is there at once, masked, beside Copy: no Decode needed to see it.
    await expect(panel.getByTestId('auth-token-row').getByTestId('auth-token-inline')).toHaveText(/^\S{4}•+\S{4} \(\d+ characters\)$/);
    await expect(panel.getByTestId('auth-token-row').getByTestId('auth-copy-token')).toBeEnabled();

    // Re-authorize with one more scope: the sign-in dialog opens above Server Info.
    await panel.getByTestId('auth-extra-scopes').fill('mcp:extra');
    await panel.getByTestId('auth-reauthorize').click();
    await expect(dialog).toBeVisible();
    await expect(page.locator('[data-testid=auth-scope][data-scope="mcp:extra"]')).toHaveAttribute('data-new', 'true');
    await expect(page.locator('[data-testid=auth-scope][data-scope="mcp:admin"]')).toHaveAttribute('data-new', 'false');
    await approveInPopup(page);
    await expect(page.getByTestId('auth-dialog')).toHaveCount(0);
    await expect(panel.locator('[data-testid=auth-granted-scope][data-scope="mcp:extra"]')).toBeVisible();
    await expect(panel).toHaveAttribute('data-state', 'authorized');
    await panel.getByTestId('auth-decode').click();
    const decoder = page.getByTestId('jwt-decoder');
    await expect(decoder).toHaveAttribute('data-kind', 'jwt');
    await expect(decoder.getByTestId('jwt-payload')).toContainText('testkit-user');
    await expect(decoder.getByTestId('jwt-unverified')).toContainText('not verified');
    await expect(decoder.locator('[data-testid=jwt-time][data-claim=exp]')).toBeVisible();
    await expect(decoder.getByTestId('auth-token')).toHaveAttribute('data-revealed', 'false');
    await decoder.getByTestId('jwt-payload').scrollIntoViewIfNeeded();
    await shot(page, 'oauth-panel');

    // The token, through the one call that hands it out.
    const res = await page.request.get(`${backend.origin}/api/servers/${NAME}/auth/token`, {
      headers: { 'x-mcp-remote-auth': `Bearer ${TOKEN}` },
    });
    expect(res.status()).toBe(200);
    const accessToken: string = (await res.json()).accessToken;
    expect(accessToken.split('.')).toHaveLength(3);
    // The masked token does not show it; the reveal toggle does.
    await expect(decoder.getByTestId('auth-token')).not.toContainText(accessToken);
    await decoder.getByTestId('auth-token-reveal').click();
    await expect(decoder.getByTestId('auth-token')).toHaveText(accessToken);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('auth-panel')).toHaveCount(0);

    // Traffic, OAuth only: the exchanges and steps, never the token.
    await tab(page, 'traffic');
    for (const s of ['jsonrpc', 'http', 'stderr', 'lifecycle']) await page.locator(`[data-testid=source-chip][data-source=${s}]`).click();
    await expect(page.locator('[data-testid=source-chip][data-source=oauth]')).toHaveAttribute('data-checked', 'true');
    const rows = page.getByTestId('frame-row');
    await expect(rows.first()).toBeVisible();
    await expect(page.locator('[data-testid=frame-row]:not([data-source=oauth])')).toHaveCount(0);
    await page.getByTestId('follow').click();
    await page.getByTestId('traffic-search').fill('token');
    await expect(page.locator('[data-testid=frame-row][data-kind=oauth-request]').first()).toBeVisible();
    const tokenAnswer = page.locator('[data-testid=frame-row][data-kind=oauth-response]').last();
    await expect(tokenAnswer.getByTestId('frame-summary')).toContainText(/HTTP 200 ← POST http:\/\/127\.0\.0\.1:\d+\/as\/token/);
    await tokenAnswer.getByTestId('frame-summary').click();
    await expect(tokenAnswer.getByTestId('frame-detail')).toContainText('access_token');
    await page.getByTestId('traffic-search').fill('');
    await expect(page.locator('[data-testid=frame-row][data-kind=oauth-step]').first()).toBeVisible();
    await shot(page, 'oauth-traffic');
    const text = await page.getByTestId('screen-traffic').innerText();
    expect(text).not.toContain(accessToken);
    expect(text).not.toContain(accessToken.split('.')[2]);

    // Forget tokens: the panel says there are none.
    await page.getByTestId('server-menu').click();
    await page.getByTestId('menu-server-info').click();
    await page.getByTestId('auth-forget').click();
    await page.getByTestId('confirm').click();
    await expect(page.getByTestId('auth-no-tokens')).toBeVisible();
    await expect(page.getByTestId('auth-panel')).toHaveAttribute('data-state', 'none');
    await expect(page.getByTestId('auth-granted-scope')).toHaveCount(0);
    const gone = await page.request.get(`${backend.origin}/api/servers/${NAME}/auth/token`, {
      headers: { 'x-mcp-remote-auth': `Bearer ${TOKEN}` },
    });
    expect(gone.status()).toBe(404);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('auth-panel')).toHaveCount(0);

    // The next call logs in again; Cancel fails the login and the call.
    await tab(page, 'tools');
    await selectTool(page, 'echo');
    await field(page, '/text').locator('input').fill('no token now');
    await page.getByTestId('execute').click();
    await expect(dialog).toBeVisible();
    await expect(dialog).toHaveAttribute('data-reason', 'login');
    await page.getByTestId('auth-cancel').click();
    await expect(page.getByTestId('auth-dialog')).toHaveCount(0);
    await expect(page.getByText(`Authorization of ${NAME} failed`).first()).toBeVisible();
    await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'protocol-error');
  } finally {
    await stopChild(as);
  }
});

test('oauth: a callback with an unknown state is refused', async ({ page, backend }) => {
  const res = await page.request.get(`${backend.origin}/oauth/callback?code=x&state=wrong`);
  expect(res.status()).toBe(400);
  const body = await res.text();
  expect(body).toMatch(/state/i);
  expect(body).toMatch(/unknown/i);
});
