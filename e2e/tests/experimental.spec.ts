// The Experimental tab (issue 9): the raw JSON-RPC tester against the demo over Streamable HTTP
// in both eras — a request and its answer, a method the demo does not know (-32601 named), a
// notification, a raw body that is not JSON (the demo's HTTP 415 shown as the reply), the
// session's own history reloaded into the editor, HTML in an answer drawn as text, a 10 MB answer
// cut without freezing the page — and the client capabilities the next connect advertises.
import type { Page } from '@playwright/test';
import { addHttpServer, connect, expect, openUi, shot, tab, test } from '../fixtures';

/** Add the HTTP demo to the catalog as `demo-http`, pinned to `version`, and connect it. */
async function addDemo(page: Page, url: string, version: '2025-11-25' | '2026-07-28') {
  await addHttpServer(page, 'demo-http', url, version);
  await expect(page.locator('[data-testid=server-card][data-server="demo-http"]')).toBeVisible();
  await connect(page, 'demo-http');
}

/** Fill the tester's fields (not raw) and send; the response block when it has arrived. */
async function send(page: Page, method: string, params: object | null, kind: 'Request' | 'Notification' = 'Request') {
  await page.getByTestId('exp-kind').getByText(kind, { exact: true }).click();
  await page.getByTestId('exp-method').fill(method);
  await page.getByTestId('exp-params').fill(params === null ? '' : JSON.stringify(params));
  await page.getByTestId('exp-send').click();
  await expect(page.getByTestId('exp-send')).not.toHaveAttribute('data-loading', 'true');
  return page.getByTestId('exp-response');
}

/** Switch the connection's era with the protocol selector and come back to the tab. */
async function era(page: Page, version: '2025-11-25' | '2026-07-28') {
  const screens = page.getByTestId('screens');
  const resets = Number(await screens.getAttribute('data-reset'));
  await page.getByTestId('protocol-select').click();
  await page.getByRole('option', { name: version }).click();
  await expect(screens).toHaveAttribute('data-reset', String(resets + 1));
  await expect(page.getByTestId('top-bar').getByTestId('status')).toHaveAttribute('data-status', 'connected');
  await tab(page, 'experimental');
}

test('experimental: the raw JSON-RPC tester in both eras', async ({ page, backend, demoHttp }) => {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await openUi(page, backend);
  await addDemo(page, demoHttp.url, '2025-11-25');
  await tab(page, 'experimental');
  await expect(page.getByTestId('exp-era')).toContainText('legacy');

  // A request: the engine's id and envelope, the answer with its timing; HTML stays text.
  let r = await send(page, 'tools/call', { name: 'echo', arguments: { message: '<img src=x onerror=alert(1)><b>bold</b>' } });
  await expect(r).toHaveAttribute('data-outcome', 'result');
  await expect(page.getByTestId('exp-outcome')).toHaveText('success');
  await expect(page.getByTestId('exp-duration')).toHaveText(/^\d+\.\d ms$/);
  await expect(page.getByTestId('exp-response-json')).toContainText('Echo: <img src=x onerror=alert(1)><b>bold</b>');
  await expect(page.getByTestId('exp-response-json').locator('img, b')).toHaveCount(0);

  // A method the server does not know: -32601, named.
  r = await send(page, 'experimental/myMethod', { key: 'value' });
  await expect(r).toHaveAttribute('data-outcome', 'error');
  await expect(page.getByTestId('exp-rpc-error')).toHaveText('JSON-RPC error -32601 Method not found: method not found: experimental/myMethod');

  // A notification: sent, nothing awaited.
  r = await send(page, 'notifications/experimental/poke', { n: 1 }, 'Notification');
  await expect(r).toHaveAttribute('data-outcome', 'sent');

  // Raw: the whole message editor, started from the fields; a body that is not JSON goes as typed.
  await page.getByTestId('exp-raw-toggle').check();
  await expect(page.getByTestId('exp-raw')).toHaveValue(/"method": "notifications\/experimental\/poke"/);
  await page.getByTestId('exp-raw').fill('this is {not json');
  await expect(page.getByTestId('exp-raw-invalid')).toBeVisible();
  await page.getByTestId('exp-timeout').fill('10000');
  await page.getByTestId('exp-send').click();
  r = page.getByTestId('exp-response');
  await expect(r).toHaveAttribute('data-outcome', 'reply');
  await expect(page.getByTestId('exp-summary')).toContainText('HTTP 415');
  await expect(page.getByTestId('exp-reply')).toContainText('fail to deserialize');

  // The panel's own history, newest first; a click reloads a send into the editor.
  const rows = page.getByTestId('exp-history-row');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(0)).toHaveAttribute('data-outcome', 'reply');
  await expect(rows.nth(0)).toContainText('not JSON (raw)');
  await expect(rows.nth(2)).toContainText('experimental/myMethod');
  await shot(page, 'experimental');
  await rows.nth(2).click();
  await expect(page.getByTestId('exp-raw-toggle')).not.toBeChecked();
  await expect(page.getByTestId('exp-method')).toHaveValue('experimental/myMethod');
  await page.getByTestId('exp-timeout').fill('');

  // The modern era: the same tester, the 2026-07-28 _meta on what was sent.
  await era(page, '2026-07-28');
  await expect(page.getByTestId('exp-era')).toContainText('modern');
  r = await send(page, 'tools/call', { name: 'echo', arguments: { message: 'hi' } });
  await expect(r).toHaveAttribute('data-outcome', 'result');
  await page.getByTestId('exp-sent').locator('summary').click();
  await expect(page.getByTestId('exp-sent')).toContainText('io.modelcontextprotocol/protocolVersion');
  r = await send(page, 'experimental/myMethod', {});
  await expect(page.getByTestId('exp-rpc-error')).toHaveAttribute('data-code', '-32601');

  // A 10 MB answer arrives cut, drawn as text; the page stays usable.
  r = await send(page, 'tools/call', { name: 'big', arguments: { bytes: 10_000_000 } });
  await expect(r).toHaveAttribute('data-outcome', 'result');
  await expect(page.getByTestId('exp-response-cut')).toContainText('9.5 MiB');
  await tab(page, 'traffic');
  await tab(page, 'experimental');
  await shot(page, 'experimental-modern');
  expect(dialogs).toEqual([]);
});

test('experimental: client capabilities advertised on the next connect', async ({ page, backend, demoHttp }) => {
  await openUi(page, backend);
  await addDemo(page, demoHttp.url, '2025-11-25');
  await tab(page, 'experimental');
  const caps = page.getByTestId('exp-capabilities');
  await caps.getByTestId('exp-experimental-custom').fill('custom_analytics');
  await caps.getByTestId('exp-experimental-add').click();
  await expect(caps.locator('[data-testid=exp-experimental-switch][data-name=custom_analytics]')).toBeChecked();
  // Sampling off for this server.
  const sampling = caps.locator('[data-testid=exp-standard-switch][data-path=sampling]');
  await expect(sampling).toBeChecked();
  // Saved first, then shown: the switch follows the backend's answer.
  await sampling.click();
  await expect(sampling).not.toBeChecked();
  await expect(caps.getByTestId('exp-caps-saved')).toBeVisible();
  await caps.getByTestId('exp-reconnect').click();
  await expect(page.getByTestId('top-bar').getByTestId('status')).toHaveAttribute('data-status', 'connected');

  // What the new initialize declared: the backend's view, and the frame in Traffic.
  await expect(async () => {
    const v = await (await page.request.get(`${backend.origin}/api/servers/demo-http/client-capabilities`)).json();
    expect(v.current?.experimental).toEqual({ custom_analytics: {} });
    expect(v.current?.sampling).toBeUndefined();
  }).toPass();
  const frames = await (await page.request.get(`${backend.origin}/api/servers/demo-http/frames?after=0&limit=10000&source=jsonrpc`)).json();
  const inits = (frames.frames as { direction: string; method: string; text: string }[]).filter((f) => f.direction === 'out' && f.method === 'initialize');
  const last = JSON.parse(inits[inits.length - 1].text);
  expect(last.params.capabilities.experimental).toEqual({ custom_analytics: {} });
  expect(last.params.capabilities.sampling).toBeUndefined();
  await tab(page, 'experimental');
  await caps.getByTestId('exp-advertised').locator('summary').click();
  await expect(caps.getByTestId('exp-advertised-current')).toContainText('custom_analytics');
  await shot(page, 'experimental-capabilities');
});
