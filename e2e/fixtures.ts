// Test fixtures: the real backend (`mcpscope --no-open`) with a fixed token and a temporary data
// directory, the demo server over HTTP, and helpers that wait on the SPA's automation contract
// (web/README.md), never on timers.
import { test as base, expect, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPO = path.resolve(__dirname, '..');
export const BIN = process.env.MCPSCOPE_BIN ?? path.join(REPO, 'target/debug/mcpscope');
export const TOKEN = 'e2e-fixed-token-0123456789abcdef';
export const SHOTS = path.join(__dirname, 'screenshots');

/** A running child process with the first line matching a pattern. */
export function startAndWait(cmd: string, args: string[], env: NodeJS.ProcessEnv, stream: 'stdout' | 'stderr', pattern: RegExp, what: string) {
  return new Promise<{ child: ChildProcess; match: RegExpMatchArray }>((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    let errBuf = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 30 s:\n${buf}\n${errBuf}`)), 30_000);
    const onData = (chunk: Buffer) => {
      buf += chunk.toString();
      const m = buf.match(pattern);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    };
    child[stream]!.on('data', onData);
    const other = stream === 'stdout' ? child.stderr! : child.stdout!;
    other.on('data', (c: Buffer) => {
      errBuf += c.toString();
      if (process.env.E2E_DEBUG) process.stderr.write(`[${what}] ${c}`);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${buf}\n${errBuf}`));
    });
  });
}

export async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGINT');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killer);
}

export interface Backend {
  /** The UI's origin, e.g. http://127.0.0.1:41234 */
  origin: string;
  dataDir: string;
  /** Stop this backend and start a new one on the same data directory. */
  restart: () => Promise<void>;
  stop: () => Promise<void>;
}

async function launchBackend(dataDir: string) {
  const { child, match } = await startAndWait(
    BIN,
    ['--no-open'],
    {
      MCP_INSPECTOR_API_TOKEN: TOKEN,
      CLIENT_PORT: '0',
      HOST: '127.0.0.1',
      MCPSCOPE_DATA_DIR: dataDir,
      MCPSCOPE_SECRET_STORE: 'memory',
      // Import server.json's verification never asks a live registry from a test: a port
      // nothing listens on ("could not check"), unless a spec scripts its own registry.
      MCPSCOPE_NPM_REGISTRY: process.env.MCPSCOPE_NPM_REGISTRY ?? 'http://127.0.0.1:9',
      MCPSCOPE_PYPI_URL: process.env.MCPSCOPE_PYPI_URL ?? 'http://127.0.0.1:9',
      RUST_LOG: process.env.RUST_LOG ?? 'warn',
    },
    'stdout',
    /mcpscope web UI: (http:\/\/127\.0\.0\.1:(\d+))\/\?token=/,
    'mcpscope',
  );
  return { child, origin: match[1] };
}

export interface DemoHttp {
  url: string;
  stop: () => Promise<void>;
}

export const test = base.extend<{ backend: Backend; demoHttp: DemoHttp }>({
  backend: async ({}, use) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mcpscope-e2e-'));
    let cur = await launchBackend(dataDir);
    const backend: Backend = {
      origin: cur.origin,
      dataDir,
      restart: async () => {
        await stopChild(cur.child);
        cur = await launchBackend(dataDir);
        backend.origin = cur.origin;
      },
      stop: () => stopChild(cur.child),
    };
    await use(backend);
    await stopChild(cur.child);
    rmSync(dataDir, { recursive: true, force: true });
  },
  demoHttp: async ({}, use) => {
    const { child, match } = await startAndWait(BIN, ['demo-server', '--http', '0'], {}, 'stderr', /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/, 'demo-server --http');
    await use({ url: match[1], stop: () => stopChild(child) });
    await stopChild(child);
  },
});

export { expect };

/** Open the UI the way a user does: the launch URL with the token (it becomes a cookie). */
export async function openUi(page: Page, backend: Backend) {
  await page.goto(`${backend.origin}/?token=${TOKEN}`);
  await expect(page.getByTestId('stream-state')).toHaveCount(0);
  await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'list');
}

/** Add a Streamable HTTP server to the catalog through Add Server's form, pinned to `protocol`
 * when one is given (else Auto), and save it. */
export async function addHttpServer(page: Page, name: string, url: string, protocol?: '2025-11-25' | '2026-07-28') {
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('add-manually').click();
  await page.getByTestId('server-form-name').fill(name);
  await page.getByTestId('server-form-transport').getByText('Streamable HTTP').click();
  await page.getByTestId('server-form-url').fill(url);
  if (protocol) {
    await page.getByTestId('server-form-protocol').click();
    await page.getByRole('option', { name: protocol }).click();
  }
  await page.getByTestId('server-form-save').click();
}

/** Connect a catalog server from its card and wait until its screens are shown. */
export async function connect(page: Page, name: string) {
  const card = page.locator(`[data-testid=server-card][data-server="${name}"]`);
  await card.getByTestId('server-toggle').click();
  // Once connected the view switches to the server's screens (the card is then gone).
  await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'server');
  await expect(page.getByTestId('server-menu')).toHaveAttribute('data-server', name);
  await expect(page.getByTestId('top-bar').getByTestId('status')).toHaveAttribute('data-status', 'connected');
  await expect(page.getByTestId('tools-count')).not.toHaveAttribute('data-count', '0');
}

export async function tab(page: Page, id: string) {
  await page.getByTestId(`tab-${id}`).click();
  await expect(page.getByTestId(`screen-${id}`)).toBeVisible();
}

export async function selectTool(page: Page, name: string) {
  await page.getByTestId('tool-search').fill(name);
  await page.locator(`[data-testid=tool-item][data-tool="${name}"]`).click();
  await expect(page.locator(`[data-testid=tool-detail][data-tool="${name}"]`)).toBeVisible();
  await expect(page.locator(`[data-testid=tool-detail][data-tool="${name}"] [data-testid=schema-form]`)).toBeVisible();
}

/** A field of the visible generated form, by JSON pointer (e.g. "/message"). */
export function field(page: Page, pointer: string) {
  return page.locator(`[data-testid=form-field][data-field="${pointer}"]`).filter({ visible: true }).first();
}

export async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** Switch the connected demo to an era with the protocol selector and wait for the reconnect
 *  (the screens reset once, the status is connected again, the tools are listed). */
export async function era(page: Page, version: '2025-11-25' | '2026-07-28') {
  const screens = page.getByTestId('screens');
  const resets = Number(await screens.getAttribute('data-reset'));
  await page.getByTestId('protocol-select').click();
  await page.getByRole('option', { name: version }).click();
  await expect(screens).toHaveAttribute('data-reset', String(resets + 1));
  await expect(page.getByTestId('top-bar').getByTestId('status')).toHaveAttribute('data-status', 'connected');
  await expect(page.getByTestId('tools-count')).not.toHaveAttribute('data-count', '0');
}
