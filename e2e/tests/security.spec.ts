// Attacks from the same machine, in real Chromium (issue 24's security findings): a page on
// another loopback port — any local dev server, or an MCP App's sandbox — and an MCP App itself.
// Cookies do not separate ports and "same-site" spans every port of 127.0.0.1, so such a page
// gets further than a cross-site one: it can toss a cookie of our name (item 25) and navigate the
// UI with a deep link (item 27). An app is same-origin with the sandbox proxy page and must not
// escape its CSP through it (item 26), and the proxy's own CSP must parse (item 21).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Frame, Page } from '@playwright/test';
import { connect, expect, field, openUi, selectTool, tab, test } from '../fixtures';

/** A server on another loopback port: it serves `page` at `/` and records every request. */
async function otherPort(page = '<!doctype html><title>elsewhere</title>') {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('access-control-allow-origin', '*');
    res.end(page);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** What the page itself gets from the API (its cookies, its origin). */
async function api(page: Page, path: string): Promise<{ status: number; body: unknown }> {
  return page.evaluate(async (p) => {
    const r = await fetch(p);
    return { status: r.status, body: await r.json().catch(() => null) };
  }, path);
}

test('a cookie of our name tossed by another loopback port does not lock the user out (item 25)', async ({ page, backend }) => {
  await openUi(page, backend);
  // The other port's page sets mcpscope_token=x for /api: the browser sends it before ours.
  const other = await otherPort(`<!doctype html><script>document.cookie = 'mcpscope_token=x; path=/api';</script><p id=done>tossed</p>`);
  await page.goto(other.url);
  await expect(page.locator('#done')).toHaveText('tossed');
  await page.goto(backend.origin);
  const sent = await page.context().cookies(`${backend.origin}/api/servers`);
  expect(sent.filter((c) => c.name === 'mcpscope_token').length, 'both cookies reach /api').toBe(2);
  // More calls than the free wrong guesses: none is refused or slowed into a 429.
  for (let i = 0; i < 8; i++) expect((await api(page, '/api/servers')).status).toBe(200);
  await connect(page, 'demo');
  await other.close();
});

test('an app cannot escape its CSP through the sandbox proxy page (item 26), whose CSP parses (item 21)', async ({ page, backend }) => {
  const sink = await otherPort();
  const invalid: string[] = [];
  page.on('console', (m) => {
    if (m.text().includes('invalid source')) invalid.push(m.text());
  });
  await openUi(page, backend);
  await connect(page, 'demo');
  await tab(page, 'apps');
  await page.getByTestId('app-search').fill('show-app');
  await page.locator('[data-testid=app-item][data-app="show-app"]').click();
  await expect(page.getByTestId('app-panel')).toHaveAttribute('data-app-status', 'ready');
  const app = page.frames().find((f: Frame) => f.parentFrame() !== null && f.parentFrame()?.parentFrame() === page.mainFrame());
  expect(app, 'the app runs two frames deep').toBeTruthy();
  // The demo app declares no connect domains: connect-src 'none', for its own fetch and for the
  // proxy page's (the app is same-origin with it and can call parent.fetch).
  const tried = await app!.evaluate(async (url) => {
    const out: Record<string, string> = {};
    const attempts: [string, () => Promise<unknown>][] = [
      ['own', () => fetch(`${url}/own`, { mode: 'no-cors' })],
      ['parent', () => (window.parent as Window & typeof globalThis).fetch(`${url}/parent`, { mode: 'no-cors' })],
    ];
    for (const [name, go] of attempts) {
      try {
        await go();
        out[name] = 'reached';
      } catch {
        out[name] = 'blocked';
      }
    }
    return out;
  }, sink.url);
  expect(tried).toEqual({ own: 'blocked', parent: 'blocked' });
  expect(sink.hits).toEqual([]);
  expect(invalid, 'every CSP source of the sandbox parses').toEqual([]);
  await sink.close();
});

test('a deep link from another page asks before it connects or runs anything (item 27)', async ({ page, backend }) => {
  await openUi(page, backend);
  const args = Buffer.from(JSON.stringify({ planted: 'by another page' })).toString('base64url');
  const target = `${backend.origin}/?server=demo&openApp=show-app&appArgs=${args}`;
  const other = await otherPort(`<!doctype html><script>location.href = ${JSON.stringify(target)};</script>`);
  await page.goto(other.url);
  // The link pre-fills a question: what would start, the app, the arguments.
  await expect(page.getByTestId('deep-link')).toHaveAttribute('data-app', 'show-app');
  await expect(page.getByTestId('deep-link-args')).toContainText('by another page');
  await expect(page.getByTestId('deep-link-target')).toContainText('demo-server');
  const { servers } = (await api(page, '/api/servers')).body as { servers: { name: string; status: string }[] };
  expect(servers.find((s) => s.name === 'demo')?.status).toBe('disconnected');
  await page.getByTestId('deep-link-cancel').click();
  await expect(page.getByTestId('deep-link')).toHaveCount(0);
  const history = (await api(page, '/api/history')).body as { entries: unknown[] };
  expect(history.entries, 'nothing was sent to any server').toEqual([]);
  await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'list');
  await other.close();
});

test('a right-to-left override in server text is shown, not obeyed (item 28)', async ({ page, backend }) => {
  await openUi(page, backend);
  await connect(page, 'demo');
  await selectTool(page, 'echo');
  // The demo echoes it back: server text carrying U+202E, which would draw "invoicefdp.exe".
  await field(page, '/message').locator('input').fill('invoice\u202Eexe.pdf');
  await page.getByTestId('execute').click();
  const result = page.getByTestId('tool-result');
  await expect(result).toHaveAttribute('data-outcome', 'ok');
  await expect(result).toContainText('Echo: invoice⟦U+202E⟧exe.pdf');
  expect(await result.evaluate((e) => e.textContent?.includes('\u202E'))).toBe(false);
  // What is typed stays as typed (the argument was sent with the real character).
  await expect(field(page, '/message').locator('input')).toHaveValue('invoice\u202Eexe.pdf');
});
