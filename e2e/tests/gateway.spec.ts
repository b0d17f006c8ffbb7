// The gateway mode's page (issue 25, seeds/002 "Using the inspector", docs/gateway.md) through
// the real relay: `mcpscope gateway --config <file>` in front of stand-in gateways built on
// FastMCP and the Python SDK (testenv/peers/gateway-standin.py: 002's demo table, toystore_ and
// stateless_ backends), for both protocols, a bearer-protected gateway, one without prompts and
// one whose legacy sessions expire on demand, and one with the stand-in's optional tools
// (`--header-tools`: valid and invalid `x-mcp-header` annotations; `--input-required-tool`: a
// FastMCP guard tool answering `input_required`) whose `--record` log shows what arrived; the
// bearer-protected ones over HTTPS with a CA made in the test (testenv/peers/make-test-ca.sh,
// trusted by the relay through MCP_PROXY_CA_FILE).
// Waits on the page's data-testid / data-* contract (web/README.md, "Gateway page"), never on
// timers.
import { expect, test, type Page } from '@playwright/test';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BIN, REPO, SHOTS, stopChild, TOKEN } from '../fixtures';

const STANDIN = path.join(REPO, 'testenv/peers/gateway-standin.sh');
const MAKE_CA = path.join(REPO, 'testenv/peers/make-test-ca.sh');
const SERVERS = { toystore_: 'toystore', stateless_: 'stateless' };
const BEARER = 'e2e-gateway-bearer-1';
const ROTATED = 'e2e-gateway-bearer-2';

/** A child whose stdout or stderr printed `pattern`. */
function startAndWait(cmd: string, args: string[], env: NodeJS.ProcessEnv, pattern: RegExp, what: string) {
  return new Promise<{ child: ChildProcess; match: RegExpMatchArray }>((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 60 s:\n${buf}`)), 60_000);
    const onData = (chunk: Buffer) => {
      buf += chunk.toString();
      if (process.env.E2E_DEBUG) process.stderr.write(`[${what}] ${chunk}`);
      const m = buf.match(pattern);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${buf}`));
    });
  });
}

interface Standin {
  url: string;
  port: number;
  child: ChildProcess;
}

async function standin(what: string, args: string[]): Promise<Standin> {
  const { child, match } = await startAndWait('bash', [STANDIN, ...args], { PYTHONWARNINGS: 'ignore' }, /listening on (https?:\/\/127\.0\.0\.1:(\d+)\/mcp)/, `standin ${what}`);
  return { url: match[1], port: Number(match[2]), child };
}

const standins: Record<string, Standin> = {};
let backend: ChildProcess | undefined;
let origin = '';
let dir = '';
let tls: string[] = [];
/** The `--record` log of the `annotated` stand-in: one JSON line per HTTP request it received. */
let record = '';

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dir = mkdtempSync(path.join(tmpdir(), 'mcpscope-gateway-e2e-'));
  // The bearer-protected gateways serve HTTPS with a CA made here: the relay sends a token only
  // over HTTPS, and trusts this CA through MCP_PROXY_CA_FILE.
  execFileSync('bash', [MAKE_CA, dir]);
  tls = ['--tls-cert', path.join(dir, 'server.pem'), '--tls-key', path.join(dir, 'server-key.pem')];
  record = path.join(dir, 'annotated.jsonl');
  const started = await Promise.all([
    standin('legacy', ['--era', 'legacy']),
    standin('modern', ['--era', 'modern']),
    standin('both', ['--era', 'both']),
    standin('locked', ['--era', 'both', '--bearer', BEARER, ...tls]),
    standin('rotating', ['--era', 'modern', '--bearer', BEARER, ...tls]),
    standin('noprompts', ['--era', 'both', '--no-prompts']),
    standin('expiring', ['--era', 'legacy', '--session-ttl', '3600']),
    standin('annotated', ['--era', 'both', '--header-tools', '--input-required-tool', '--record', record]),
  ]);
  const names = ['legacy', 'modern', 'both', 'locked', 'rotating', 'noprompts', 'expiring', 'annotated'];
  names.forEach((n, i) => (standins[n] = started[i]));
  // mcpscope's own demo server over HTTP: a tool with x-mcp-header annotations (route-query) and
  // one that answers input_required at 2026-07-28 (onboard).
  const demo = await startAndWait(BIN, ['demo-server', '--http', '0'], {}, /listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/, 'demo-server');
  standins.demo = { url: demo.match[1], port: Number(demo.match[2]), child: demo.child };
  names.push('demo');
  const gateways: Record<string, unknown> = {};
  for (const n of names) gateways[n] = { url: standins[n].url, description: `stand-in gateway (${n})`, servers: SERVERS };
  gateways.demo = { url: standins.demo.url, description: "mcpscope's demo server" };
  // A gateway outside MCP_PROXY_ALLOWED_ORIGINS: the relay refuses it with its rule.
  gateways.elsewhere = { url: 'http://127.0.0.1:9/mcp', description: 'not an allowed origin' };
  const config = path.join(dir, 'gateways.json');
  writeFileSync(config, JSON.stringify({ gateways }, null, 2));
  const allowed = names.map((n) => new URL(standins[n].url).origin).join(',');
  const b = await startAndWait(
    BIN,
    ['gateway', '--config', config, '--port', '0'],
    {
      MCP_INSPECTOR_API_TOKEN: TOKEN,
      HOST: '127.0.0.1',
      MCP_PROXY_CA_FILE: path.join(dir, 'ca.pem'),
      MCP_PROXY_ALLOWED_ORIGINS: allowed,
      RUST_LOG: process.env.RUST_LOG ?? 'warn',
    },
    /(http:\/\/127\.0\.0\.1:\d+)\//,
    'mcpscope gateway',
  );
  backend = b.child;
  origin = b.match[1];
});

test.afterAll(async () => {
  if (backend) await stopChild(backend);
  await Promise.all(Object.values(standins).map((s) => stopChild(s.child)));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Open the page the way a user does (the token becomes a cookie), on `gateway` at `protocol`. */
async function open(page: Page, gateway: string, protocol?: 'Auto' | '2026-07-28' | '2025-11-25') {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${origin}/?token=${TOKEN}`);
  await expect(page.getByTestId('gateway-page')).toBeVisible();
  await choose(page, 'gateway-select', gateway);
  if (protocol) await choose(page, 'protocol-select', protocol);
}

/** Pick an option of a Mantine select by its label's start. */
async function choose(page: Page, testId: string, label: string) {
  const select = page.getByTestId(testId);
  if ((await select.inputValue()).startsWith(label)) return;
  await select.click();
  await page.getByRole('option', { name: new RegExp(`^${label.replace(/[()]/g, '\\$&')}`) }).click();
}

const details = (page: Page) => page.getByTestId('connection-details');

async function connected(page: Page, version: string, kind: string) {
  await expect(details(page)).toHaveAttribute('data-status', 'connected');
  await expect(details(page)).toHaveAttribute('data-version', version);
  await expect(details(page)).toHaveAttribute('data-kind', kind);
  await expect(page.getByTestId('tools-count')).not.toHaveAttribute('data-count', '0');
}

async function selectTool(page: Page, name: string) {
  await page.getByTestId('tool-search').fill(name);
  await page.locator(`[data-testid=tool-item][data-tool="${name}"]`).click();
  await expect(page.locator(`[data-testid=tool-detail][data-tool="${name}"]`)).toBeVisible();
}

const nameField = (page: Page) => page.locator('[data-testid=form-field][data-field="/Name"] input');

async function runTool(page: Page, name: string, who: string) {
  await selectTool(page, name);
  await nameField(page).fill(who);
  await page.getByTestId('run-tool').click();
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

test('2025-11-25: tools with their server, Validate only, Run tool, the Output card, prompts with the estimate', async ({ page }) => {
  await open(page, 'legacy', '2025-11-25');
  await connected(page, '2025-11-25', 'session-based');
  // The server of each tool, from the file's prefixes.
  await expect(page.locator('[data-testid=tool-item][data-tool="toystore_greet"]')).toHaveAttribute('data-server', 'toystore');
  await expect(page.locator('[data-testid=tool-item][data-tool="stateless_hello_world"]')).toHaveAttribute('data-server', 'stateless');
  // Find by name.
  await page.getByTestId('tool-search').fill('toystore');
  await expect(page.getByTestId('tool-list')).toHaveAttribute('data-count', '1');

  await selectTool(page, 'toystore_greet');
  await page.getByTestId('validate').click();
  await expect(page.getByTestId('validation-result')).toHaveAttribute('data-valid', 'false');
  await expect(page.locator('[data-testid=form-field][data-field="/Name"]')).toContainText('required');
  // Nothing was sent: Validate only is local.
  await expect(page.getByTestId('stats')).toHaveAttribute('data-calls', '0');
  await nameField(page).fill('Ada');
  await page.getByTestId('validate').click();
  await expect(page.getByTestId('validation-result')).toHaveAttribute('data-valid', 'true');

  await page.getByTestId('run-tool').click();
  const out = page.getByTestId('output-card');
  await expect(out).toHaveAttribute('data-outcome', 'ok');
  await expect(out.getByTestId('output-result')).toContainText('Hi Ada');
  await expect(out.getByTestId('output-status')).toHaveText('HTTP 200');
  await expect(out.getByTestId('output-elapsed')).toHaveText(/^\d+ ms$/);
  await expect(page.getByTestId('stats')).toHaveAttribute('data-calls', '1');
  await shot(page, 'gateway-tools-legacy');
  await out.getByTestId('output-tab-request').click();
  await expect(out.getByTestId('output-request')).toContainText('"tools/call"');
  await expect(out.getByTestId('output-request')).toContainText('MCP-Protocol-Version: 2025-11-25');
  await expect(out.getByTestId('output-request')).not.toContainText('Mcp-Method');
  await out.getByTestId('output-tab-response').click();
  await expect(out.getByTestId('output-response')).toContainText('Hi Ada');

  // Refresh tools: tools/list again, without reconnecting (the output and counters stay).
  const sent: string[] = [];
  page.on('request', (r) => sent.push(String((JSON.parse(r.postData() ?? '{}') as { method?: string }).method)));
  const relisted = page.waitForResponse((r) => r.url().endsWith('/api/gateways/legacy/mcp') && (r.request().postData() ?? '').includes('"tools/list"'));
  await page.getByTestId('refresh-tools').click();
  await relisted;
  await expect(page.getByTestId('refresh-tools')).not.toHaveAttribute('data-loading', 'true');
  expect(sent).toEqual(['tools/list']);
  await expect(page.getByTestId('tools-count')).toHaveAttribute('data-count', '2');
  await expect(out).toHaveAttribute('data-outcome', 'ok');
  await expect(details(page)).toHaveAttribute('data-kind', 'session-based');

  await page.getByTestId('tab-prompts').click();
  await choose(page, 'prompt-select', 'toystore_greet');
  await page.getByTestId('generate-prompt').click();
  const pout = page.getByTestId('output-card');
  await expect(pout).toHaveAttribute('data-what', 'prompt');
  await expect(pout.getByTestId('prompt-message')).toContainText('Say hi to');
  await expect(pout.getByTestId('size-estimate')).toContainText('estimate');
  await expect(pout.getByTestId('size-estimate')).toContainText('four characters per token');
  await expect(pout.getByTestId('copy-messages')).toBeVisible();
  await expect(page.getByTestId('stats')).toHaveAttribute('data-calls', '2');
});

test('2026-07-28: stateless, routing headers and _meta, Run tool, prompts with the estimate', async ({ page }) => {
  await open(page, 'modern', '2026-07-28');
  await connected(page, '2026-07-28', 'stateless');
  await expect(page.locator('[data-testid=tool-item][data-tool="stateless_hello_world"]')).toHaveAttribute('data-server', 'stateless');
  await runTool(page, 'stateless_hello_world', 'Ada');
  const out = page.getByTestId('output-card');
  await expect(out).toHaveAttribute('data-outcome', 'ok');
  await expect(out.getByTestId('output-result')).toContainText('Hello, Ada!');
  await expect(out.getByTestId('output-status')).toHaveText('HTTP 200');
  await shot(page, 'gateway-tools-modern');
  await out.getByTestId('output-tab-request').click();
  const req = out.getByTestId('output-request');
  await expect(req).toContainText('Mcp-Method: tools/call');
  await expect(req).toContainText('Mcp-Name: stateless_hello_world');
  await expect(req).toContainText('io.modelcontextprotocol/protocolVersion');
  await expect(req).toContainText('io.modelcontextprotocol/clientInfo');

  await page.getByTestId('tab-prompts').click();
  await choose(page, 'prompt-select', 'stateless_greeting');
  await page.getByTestId('generate-prompt').click();
  // Name is required: nothing is sent until it is filled.
  await expect(page.locator('[data-testid=form-field][data-field="/Name"]')).toContainText('required');
  await nameField(page).fill('Ada');
  await page.getByTestId('generate-prompt').click();
  const pout = page.getByTestId('output-card');
  await expect(pout.getByTestId('prompt-message')).toContainText('Please greet Ada warmly');
  // "user: Please greet Ada warmly" is 29 characters: 8 tokens at four characters per token.
  await expect(pout.getByTestId('size-estimate')).toHaveAttribute('data-tokens', '8');
  await shot(page, 'gateway-prompts');
});

test('Auto prefers 2026-07-28; the protocol selector reconnects and clears outputs and counters', async ({ page }) => {
  await open(page, 'both');
  await connected(page, '2026-07-28', 'stateless');
  await runTool(page, 'stateless_hello_world', 'Ada');
  await expect(page.getByTestId('output-card')).toHaveAttribute('data-outcome', 'ok');
  await expect(page.getByTestId('stats')).toHaveAttribute('data-calls', '1');
  await choose(page, 'protocol-select', '2025-11-25');
  await connected(page, '2025-11-25', 'session-based');
  await expect(page.getByTestId('stats')).toHaveAttribute('data-calls', '0');
  await expect(page.getByTestId('output-card')).toHaveAttribute('data-empty', 'true');
  await runTool(page, 'toystore_greet', 'Ada');
  await expect(page.getByTestId('output-card').getByTestId('output-result')).toContainText('Hi Ada');
});

test('a 401 on connect opens the bearer dialog; Reconnect stays after dismissing it; the token is kept per gateway', async ({ page }) => {
  await open(page, 'locked');
  const dialog = page.getByTestId('token-dialog-body');
  await expect(dialog).toBeVisible();
  await expect(details(page)).toHaveAttribute('data-status', 'needs-token');
  // The modal has faded in (the picture shows it, not its transition).
  await page.waitForFunction(() => [...document.querySelectorAll('.mantine-Modal-content')].some((e) => getComputedStyle(e).opacity === '1'));
  await shot(page, 'gateway-token-dialog');
  await page.getByTestId('token-cancel').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('reconnect')).toBeVisible();
  // Reconnect without a token: the gateway asks again.
  await page.getByTestId('reconnect').click();
  await expect(dialog).toBeVisible();
  await page.getByTestId('token-input').fill('wrong');
  await page.getByTestId('token-submit').click();
  await expect(dialog).toBeVisible();
  await page.getByTestId('token-input').fill(BEARER);
  await page.getByTestId('token-submit').click();
  await connected(page, '2026-07-28', 'stateless');
  // The protocol selector keeps the token for the same gateway.
  await choose(page, 'protocol-select', '2025-11-25');
  await connected(page, '2025-11-25', 'session-based');
  await expect(dialog).toBeHidden();
  await runTool(page, 'toystore_greet', 'Ada');
  await expect(page.getByTestId('output-card').getByTestId('output-result')).toContainText('Hi Ada');
  // Another gateway and back: the token is gone.
  await choose(page, 'gateway-select', 'legacy');
  await connected(page, '2025-11-25', 'session-based');
  await expect(page.getByTestId('token-held')).toHaveCount(0);
  await choose(page, 'gateway-select', 'locked');
  await expect(dialog).toBeVisible();
});

/** Rotate the `rotating` stand-in's bearer under the page: the same port, another token. */
async function rotate(token: string) {
  const s = standins.rotating;
  await stopChild(s.child);
  standins.rotating = await standin('rotating', ['--era', 'modern', '--bearer', token, ...tls, '--port', String(s.port)]);
}

async function giveToken(page: Page, token: string) {
  await expect(page.getByTestId('token-dialog-body')).toBeVisible();
  await page.getByTestId('token-input').fill(token);
  await page.getByTestId('token-submit').click();
  await expect(details(page)).toHaveAttribute('data-status', 'connected');
  await expect(details(page)).toHaveAttribute('data-version', '2026-07-28');
}

test('a 401 during a run, a refresh or a prompt invalidates the client and reopens the bearer dialog', async ({ page }) => {
  test.setTimeout(150_000);
  await open(page, 'rotating');
  await page.getByTestId('token-input').fill(BEARER);
  await page.getByTestId('token-submit').click();
  await connected(page, '2026-07-28', 'stateless');
  // The gateway's token is rotated under the page.
  await rotate(ROTATED);
  await runTool(page, 'stateless_hello_world', 'Ada');
  const out = page.getByTestId('output-card');
  await expect(out).toHaveAttribute('data-outcome', 'error');
  await expect(out.getByTestId('output-status')).toHaveText('HTTP 401');
  await expect(page.getByTestId('token-dialog-body')).toBeVisible();
  await expect(page.getByTestId('stats')).toHaveAttribute('data-errors', '1');
  await page.getByTestId('token-input').fill(ROTATED);
  await page.getByTestId('token-submit').click();
  await connected(page, '2026-07-28', 'stateless');
  await page.getByTestId('run-tool').click();
  await expect(out).toHaveAttribute('data-outcome', 'ok');
  await expect(out.getByTestId('output-result')).toContainText('Hello, Ada!');

  // Refresh tools.
  await rotate(BEARER);
  await page.getByTestId('refresh-tools').click();
  await expect(details(page)).toHaveAttribute('data-status', 'needs-token');
  await giveToken(page, BEARER);

  // Generate prompt.
  await rotate(ROTATED);
  await page.getByTestId('tab-prompts').click();
  await choose(page, 'prompt-select', 'stateless_greeting');
  await nameField(page).fill('Ada');
  await page.getByTestId('generate-prompt').click();
  await expect(page.getByTestId('output-card')).toHaveAttribute('data-outcome', 'error');
  await giveToken(page, ROTATED);
  await page.getByTestId('generate-prompt').click();
  await expect(page.getByTestId('output-card').getByTestId('prompt-message')).toContainText('Please greet Ada warmly');
});

test('a gateway without prompts says so', async ({ page }) => {
  await open(page, 'noprompts');
  await connected(page, '2026-07-28', 'stateless');
  await page.getByTestId('tab-prompts').click();
  await expect(page.getByTestId('no-prompts')).toHaveText('This gateway does not expose prompts.');
});

test('an expired session shows a warning and Reconnect starts a new one', async ({ page, request }) => {
  await open(page, 'expiring', '2025-11-25');
  await connected(page, '2025-11-25', 'session-based');
  const expire = await request.post(new URL('/standin/expire', standins.expiring.url).href);
  expect(expire.ok()).toBe(true);
  await runTool(page, 'toystore_greet', 'Ada');
  await expect(page.getByTestId('session-expired')).toBeVisible();
  await expect(details(page)).toHaveAttribute('data-status', 'expired');
  await expect(page.getByTestId('output-card').getByTestId('output-status')).toHaveText('HTTP 404');
  await expect(page.getByTestId('output-card')).toHaveAttribute('data-outcome', 'session-expired');
  await expect(page.getByTestId('stats')).toHaveAttribute('data-warnings', '1');
  await shot(page, 'gateway-session-expired');
  await page.getByTestId('reconnect').click();
  await connected(page, '2025-11-25', 'session-based');
  await expect(page.getByTestId('session-expired')).toBeHidden();
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('output-card').getByTestId('output-result')).toContainText('Hi Ada');
});

test("a relay refusal is shown as the relay's rule, not the gateway's", async ({ page }) => {
  await open(page, 'elsewhere');
  const problem = page.getByTestId('problem');
  await expect(problem).toHaveAttribute('data-kind', 'refused');
  await expect(problem).toHaveAttribute('data-rule', 'allowed-origins');
  await expect(problem).toContainText("Refused by mcpscope's relay");
});

test('2026-07-28 through the relay: Mcp-Param-* headers from x-mcp-header, and input_required shown as Input required', async ({ page }) => {
  await open(page, 'demo', '2026-07-28');
  await connected(page, '2026-07-28', 'stateless');
  await selectTool(page, 'route-query');
  await page.locator('[data-testid=form-field][data-field="/region"] input').fill('Zürich');
  await page.locator('[data-testid=form-field][data-field="/priority"] input').fill('3');
  await page.locator('[data-testid=form-field][data-field="/dryRun"] input').check();
  await page.locator('[data-testid=form-field][data-field="/query"] input').fill('SELECT 1');
  // A _meta pair of the user's, and one that tries to replace the inspector's own field.
  await page.getByTestId('meta-add').click();
  await page.getByTestId('meta-key').nth(0).fill('example.com/trace');
  await page.getByTestId('meta-value').nth(0).fill('abc');
  await page.getByTestId('meta-add').click();
  await page.getByTestId('meta-key').nth(1).fill('io.modelcontextprotocol/protocolVersion');
  await page.getByTestId('meta-value').nth(1).fill('1999-01-01');
  await page.getByTestId('run-tool').click();
  const out = page.getByTestId('output-card');
  // The server checked the headers against the body (a mismatch would be -32020).
  await expect(out).toHaveAttribute('data-outcome', 'ok');
  await expect(out.getByTestId('output-result')).toContainText('Zürich');
  await out.getByTestId('output-tab-request').click();
  const req = out.getByTestId('output-request');
  await expect(req).toContainText('Mcp-Param-Region: =?base64?WsO8cmljaA==?=');
  await expect(req).toContainText('Mcp-Param-Priority: 3');
  await expect(req).toContainText('Mcp-Param-Dry-Run: true');
  // (The JSON tree draws keys without quotes.)
  await expect(req).toContainText('example.com/trace:"abc"');
  await expect(req).toContainText('io.modelcontextprotocol/protocolVersion:"2026-07-28"');
  await expect(req).not.toContainText('1999-01-01');
  await shot(page, 'gateway-param-headers');

  await selectTool(page, 'onboard');
  await page.getByTestId('run-tool').click();
  await expect(out).toHaveAttribute('data-outcome', 'input-required');
  await expect(out.getByTestId('output-outcome')).toHaveText('Input required');
  await expect(out.getByTestId('input-required')).toContainText('no continuation');
  await expect(out.getByTestId('output-result')).toContainText('inputRequests');
  await expect(page.getByTestId('stats')).toHaveAttribute('data-warnings', '1');
  await expect(page.getByTestId('stats')).toHaveAttribute('data-calls', '2');
});

// --- Against FastMCP and the Python SDK: x-mcp-header annotations and input_required ---------

/** The `annotated` stand-in's tools whose `x-mcp-header` a 2026-07-28 client MUST exclude, each
 *  with what its reason must mention (testenv/peers/gateway-standin.py, `--header-tools`). */
const INVALID_HEADER_TOOLS: [string, RegExp][] = [
  ['toystore_engrave', /Engraving Text/], // a space: not an RFC 9110 token
  ['stateless_hello_twice', /more than once|duplicat/i], // `Name` and `name`
  ['stateless_hello_weighted', /number/], // on a `number` property
];

/** One line of the stand-in's `--record` log (headers as they arrived, names lowercase). */
interface Recorded {
  method: string;
  headers: [string, string][];
  body: string;
}

interface ToolCall {
  headers: [string, string][];
  params: { name: string; arguments: Record<string, unknown> } & Record<string, unknown>;
}

/** The `tools/call`s of `tool` the annotated stand-in received at `version`: what came out of
 *  the relay, as it arrived. */
function received(tool: string, version: string): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const line of readFileSync(record, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as Recorded;
    if (r.method !== 'POST' || !r.headers.some(([k, v]) => k === 'mcp-protocol-version' && v === version)) continue;
    const message = JSON.parse(r.body) as { method?: string; params?: ToolCall['params'] };
    if (message.method === 'tools/call' && message.params?.name === tool) calls.push({ headers: r.headers, params: message.params });
  }
  return calls;
}

const paramHeaders = (headers: [string, string][]) => headers.filter(([k]) => k.toLowerCase().startsWith('mcp-param-'));

/** A header value decoded as the spec says: `=?base64?…?=` is the Base64 of the UTF-8 bytes. */
function decodeHeaderValue(v: string): string {
  const m = /^=\?base64\?(.*)\?=$/.exec(v);
  return m ? Buffer.from(m[1], 'base64').toString('utf8') : v;
}

const field = (page: Page, name: string) => page.locator(`[data-testid=form-field][data-field="/${name}"] input`);

async function sendGift(page: Page) {
  await selectTool(page, 'toystore_send_gift');
  await field(page, 'Recipient').fill('Ada');
  // The spec's own example of a value that must be Base64-encoded (non-ASCII).
  await field(page, 'Card').fill('Hello, 世界');
  await field(page, 'Quantity').fill('3');
  await field(page, 'Wrapped').check();
  await page.getByTestId('run-tool').click();
  const out = page.getByTestId('output-card');
  await expect(out).toHaveAttribute('data-outcome', 'ok');
  await expect(out.getByTestId('output-result')).toContainText('3 gift(s) for Ada, wrapped, card: Hello, 世界');
}

test('2026-07-28, FastMCP: tools with an invalid x-mcp-header are excluded with a warning; a valid one arrives as Mcp-Param-* encoded as the spec says', async ({ page }) => {
  await open(page, 'annotated', '2026-07-28');
  await connected(page, '2026-07-28', 'stateless');
  // The demo table, send_gift and reserve; the three invalid ones left out.
  await expect(page.getByTestId('tools-count')).toHaveAttribute('data-count', '4');
  const warning = page.getByRole('alert').filter({ hasText: 'x-mcp-header' });
  await expect(warning).toBeVisible();
  await expect(page.getByTestId('excluded-tools')).toHaveAttribute('data-count', String(INVALID_HEADER_TOOLS.length));
  for (const [tool, why] of INVALID_HEADER_TOOLS) {
    await expect(warning.getByText(tool)).toContainText(why);
    await expect(page.locator(`[data-testid=tool-item][data-tool="${tool}"]`)).toHaveCount(0);
  }
  await page.getByTestId('tool-search').fill('engrave');
  await expect(page.getByTestId('tool-list')).toHaveAttribute('data-count', '0');
  await shot(page, 'gateway-excluded-tools');

  await sendGift(page);
  // What reached the gateway through the relay: one call, its four annotated arguments mirrored
  // (Note is not annotated), each value encoded as the spec says and decoding to the body's.
  const calls = received('toystore_send_gift', '2026-07-28');
  expect(calls).toHaveLength(1);
  const [{ headers, params }] = calls;
  expect(headers).toContainEqual(['mcp-name', 'toystore_send_gift']);
  expect(Object.fromEntries(paramHeaders(headers))).toEqual({
    'mcp-param-recipient': 'Ada',
    'mcp-param-card-text': '=?base64?SGVsbG8sIOS4lueVjA==?=',
    'mcp-param-quantity': '3',
    'mcp-param-gift-wrap': 'true',
  });
  const body: Record<string, string> = { recipient: 'Recipient', 'card-text': 'Card', quantity: 'Quantity', 'gift-wrap': 'Wrapped' };
  for (const [k, v] of paramHeaders(headers)) {
    expect(decodeHeaderValue(v), k).toBe(String(params.arguments[body[k.slice('mcp-param-'.length)]]));
  }
  // Nothing of the excluded tools ever left the page.
  for (const [tool] of INVALID_HEADER_TOOLS) expect(received(tool, '2026-07-28')).toHaveLength(0);
});

test('2025-11-25, FastMCP: x-mcp-header means nothing before 2026-07-28, so nothing is excluded and no Mcp-Param-* is sent', async ({ page }) => {
  await open(page, 'annotated', '2025-11-25');
  await connected(page, '2025-11-25', 'session-based');
  // Every tool listed (the Python SDK's own client also filters only at 2026-07-28), no warning.
  await expect(page.getByTestId('tools-count')).toHaveAttribute('data-count', '7');
  await expect(page.getByRole('alert').filter({ hasText: 'x-mcp-header' })).toHaveCount(0);
  await sendGift(page);
  const calls = received('toystore_send_gift', '2025-11-25');
  expect(calls).toHaveLength(1);
  expect(paramHeaders(calls[0].headers)).toEqual([]);
  expect(calls[0].headers.map(([k]) => k)).not.toContain('mcp-name');
  // A tool a 2026-07-28 client must exclude runs here.
  await selectTool(page, 'toystore_engrave');
  await field(page, 'Text').fill('Ada');
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('output-card').getByTestId('output-result')).toContainText('Engraved Ada');
});

test("2026-07-28, FastMCP: a guard tool's input_required shows as Input required, one warning, the raw response kept, no continuation", async ({ page }) => {
  await open(page, 'annotated', '2026-07-28');
  await connected(page, '2026-07-28', 'stateless');
  await selectTool(page, 'toystore_reserve');
  await field(page, 'Toy').fill('kite');
  await page.getByTestId('run-tool').click();
  const out = page.getByTestId('output-card');
  await expect(out).toHaveAttribute('data-outcome', 'input-required');
  await expect(out.getByTestId('output-outcome')).toHaveText('Input required');
  await expect(out.getByTestId('output-status')).toHaveText('HTTP 200');
  await expect(page.getByTestId('stats')).toHaveAttribute('data-warnings', '1');
  await expect(page.getByTestId('stats')).toHaveAttribute('data-errors', '0');
  await expect(page.getByTestId('stats')).toHaveAttribute('data-calls', '1');
  await shot(page, 'gateway-input-required');
  // The raw response as the SDK wrote it: its sealed requestState kept, not a made-up result.
  await out.getByTestId('output-tab-response').click();
  const raw = out.getByTestId('output-response');
  await expect(raw).toContainText('input_required');
  await expect(raw).toContainText('requestState');
  await expect(raw).toContainText('mcp-gateway-standin');
  // 002: no continuation. The gateway got the one call, never a retry carrying requestState.
  const calls = received('toystore_reserve', '2026-07-28');
  expect(calls).toHaveLength(1);
  expect(calls[0].params).not.toHaveProperty('requestState');
});
