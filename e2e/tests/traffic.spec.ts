// Traffic: every frame, the source filter, and the HTTP header verdicts on a modern HTTP server.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO, addHttpServer, connect, expect, field, openUi, selectTool, shot, startAndWait, stopChild, tab, test } from '../fixtures';

test('traffic: header verdicts on a modern HTTP server, source filter', async ({ page, backend, demoHttp }) => {
  await openUi(page, backend);
  await addHttpServer(page, 'demo-http', demoHttp.url, '2026-07-28');
  const card = page.locator('[data-testid=server-card][data-server="demo-http"]');
  await expect(card).toBeVisible();
  await connect(page, 'demo-http');

  await selectTool(page, 'route-query');
  await field(page, '/region').locator('input').fill('us-west1');
  await field(page, '/priority').locator('input').fill('3');
  await field(page, '/dryRun').locator('input[type=checkbox]').check();
  await field(page, '/query').locator('input').fill('select 1');
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok');

  await tab(page, 'traffic');
  const row = page.locator('[data-testid=frame-row][data-direction=out][data-method="tools/call"]').last();
  await expect(row).toBeVisible();
  await row.getByText('tools/call').first().click();
  await expect(row).toHaveAttribute('data-expanded', 'true');
  const headers = row.getByTestId('http-headers');
  await expect(headers).toBeVisible();
  await expect(headers.getByTestId('http-headers-summary')).toContainText('HTTP 200');
  await headers.getByTestId('http-headers-toggle').click();
  await expect(row.locator('[data-testid=header-verdict][data-header="Mcp-Param-Region"]')).toHaveAttribute('data-verdict', 'ok');
  await expect(row.locator('[data-testid=header-verdict][data-header="Mcp-Name"]')).toHaveAttribute('data-verdict', 'ok');
  await shot(page, 'traffic');

  // Source filter (issue 24): unchecking JSON-RPC hides every message, also those carried over
  // HTTP, and leaves the exchanges that carry none (the GET stream, 202s); unchecking HTTP
  // instead hides only those and keeps every message.
  const calls = page.locator('[data-testid=frame-row][data-method="tools/call"]');
  const count = page.getByTestId('frame-count');
  const all = Number(await count.getAttribute('data-count'));
  await page.locator('[data-testid=source-chip][data-source=jsonrpc]').click();
  await expect(calls).toHaveCount(0);
  await expect(count).not.toHaveAttribute('data-count', String(all));
  await page.locator('[data-testid=source-chip][data-source=jsonrpc]').click();
  await page.locator('[data-testid=source-chip][data-source=http]').click();
  await expect(calls.first()).toBeVisible();
  await expect(count).not.toHaveAttribute('data-count', String(all));
});

test('traffic: an HTTP 400 says its status and what the server answered, not "transport failure"', async ({ page, backend }) => {
  test.skip(!existsSync(path.join(REPO, '.peers')), 'the peers are not installed (bash testenv/install.sh)');
  // The TypeScript SDK v1 server answers the modern probe (server/discover) with HTTP 400.
  const { child, match } = await startAndWait(
    'bash',
    [path.join(REPO, 'testenv/peers/ts-sdk-v1-server.sh'), 'http', '0'],
    {},
    'stderr',
    /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    'ts-sdk-v1-server',
  );
  try {
    await openUi(page, backend);
    await addHttpServer(page, 'ts-v1', match[1]);
    await connect(page, 'ts-v1');
    await tab(page, 'traffic');
    const row = page.locator('[data-testid=frame-row][data-direction=out][data-method="server/discover"]').first();
    await row.getByText('server/discover').first().click();
    const summary = row.getByTestId('http-headers-summary');
    await expect(summary).toContainText('HTTP 400 · ');
    await expect(summary).not.toContainText('transport failure');
    await row.getByTestId('http-headers-toggle').click();
    await expect(row.getByTestId('http-status')).toHaveText('HTTP 400');
    await expect(row.getByTestId('http-answer-detail')).not.toBeEmpty();
  } finally {
    await stopChild(child);
  }
});
