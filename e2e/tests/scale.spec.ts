// Scale: 10,000 tools, 100,000 frames (a notification flood) and a 10 MB result stay usable.
// Timings are printed (and written to test-results/scale.json) for the README's numbers.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO, connect, expect, openUi, selectTool, shot, tab, test } from '../fixtures';

const TESTKIT = process.env.MCPSCOPE_TESTKIT_BIN ?? path.join(REPO, 'target/debug/mcpscope-testkit');

test('scale: 10,000 tools, 100,000 frames, a 10 MB result', async ({ page, backend }) => {
  test.skip(!existsSync(TESTKIT), 'build the testkit first (cargo build -p mcpscope-testkit)');
  test.setTimeout(300_000);
  const numbers: Record<string, number> = {};
  await openUi(page, backend);
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(
    JSON.stringify({
      mcpServers: {
        many: { command: TESTKIT, args: ['many-tools', '--count', '10000', '--page-size', '500'], protocolEra: 'legacy' },
        flood: { command: TESTKIT, args: ['flood', '--count', '100000'], protocolEra: 'legacy' },
        huge: { command: TESTKIT, args: ['huge-result', '--bytes', '10000000'], protocolEra: 'legacy' },
      },
    }),
  );
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText('flood');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // 10,000 tools: listed, virtualised, searchable.
  let t0 = Date.now();
  await connect(page, 'many');
  await expect(page.getByTestId('tools-count')).toHaveAttribute('data-count', '10000');
  await expect(page.getByTestId('tool-item').first()).toBeVisible();
  numbers.toolListMs = Date.now() - t0;
  const rendered = await page.getByTestId('tool-item').count();
  expect(rendered).toBeLessThan(200);
  t0 = Date.now();
  await page.getByTestId('tool-search').fill('9999');
  await expect(page.getByTestId('tool-item')).toHaveCount(1);
  numbers.toolSearchMs = Date.now() - t0;
  await page.getByTestId('tool-search').fill('');
  await shot(page, 'scale-tools');
  await page.getByTestId('disconnect').click();

  // 100,000 notifications: frames and log lines stay bounded in the page, older frames page in.
  await connect(page, 'flood');
  await selectTool(page, 'flood');
  t0 = Date.now();
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok', { timeout: 240_000 });
  numbers.flood100kMs = Date.now() - t0;
  await tab(page, 'traffic');
  const inView = Number(await page.getByTestId('frame-count').getAttribute('data-count'));
  expect(inView).toBeGreaterThan(1000);
  expect(inView).toBeLessThanOrEqual(5000);
  numbers.framesInPage = inView;
  await expect(page.getByTestId('load-older')).toBeVisible();
  t0 = Date.now();
  const before = await page.getByTestId('frame-row').first().getAttribute('data-seq');
  await page.getByTestId('load-older').click();
  await page.getByTestId('follow').click();
  await expect.poll(async () => Number(await page.getByTestId('frame-row').first().getAttribute('data-seq'))).not.toBe(Number(before));
  numbers.olderPageMs = Date.now() - t0;
  await shot(page, 'scale-traffic');
  await tab(page, 'logs');
  const logs = Number(await page.getByTestId('log-stream').getAttribute('data-count'));
  expect(logs).toBeGreaterThan(0);
  expect(logs).toBeLessThanOrEqual(5000);
  await page.getByTestId('disconnect').click();

  // A 10 MB result: shown truncated, with Show all and a download.
  await connect(page, 'huge');
  await selectTool(page, 'huge');
  t0 = Date.now();
  await page.getByTestId('execute').click();
  await expect(page.getByTestId('tool-result')).toHaveAttribute('data-outcome', 'ok', { timeout: 120_000 });
  await expect(page.getByTestId('content-text').getByTestId('truncated-text')).toHaveAttribute('data-truncated', 'true');
  numbers.result10MbMs = Date.now() - t0;
  await expect(page.getByTestId('content-text').getByTestId('download-payload')).toBeVisible();
  await shot(page, 'scale-big-result');

  console.log('scale numbers', JSON.stringify(numbers));
  mkdirSync(path.join(__dirname, '..', 'test-results'), { recursive: true });
  writeFileSync(path.join(__dirname, '..', 'test-results', 'scale.json'), JSON.stringify(numbers, null, 2));
});
