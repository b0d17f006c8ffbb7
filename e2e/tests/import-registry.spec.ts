// Import server.json (issue 24): a newcomer pastes a server.json with a mistake, reads where it is
// (the line, marked in the editor), fixes it, and the chosen package is verified — found on its
// registry with its latest version, its command on the PATH — then picks another package that is
// not published and whose runtime is missing, then breaks the JSON: the old results go.
// The npm and PyPI registries are a small HTTP server scripted here (MCPSCOPE_NPM_REGISTRY,
// MCPSCOPE_PYPI_URL), so the test never depends on a live registry.
import type { Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, openUi, shot, test } from '../fixtures';

let registry: Server;
const saved = { npm: process.env.MCPSCOPE_NPM_REGISTRY, pypi: process.env.MCPSCOPE_PYPI_URL };

test.beforeAll(async () => {
  const known: Record<string, object> = {
    '/my-mcp-server/latest': { name: 'my-mcp-server', version: '1.2.0' },
    '/my-mcp-server/1.0.0': { name: 'my-mcp-server', version: '1.0.0' },
  };
  registry = createServer((req, res) => {
    const body = known[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'Not found' }));
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  // The backend each test starts inherits these.
  process.env.MCPSCOPE_NPM_REGISTRY = base;
  process.env.MCPSCOPE_PYPI_URL = base;
});

test.afterAll(async () => {
  for (const [k, v] of [
    ['MCPSCOPE_NPM_REGISTRY', saved.npm],
    ['MCPSCOPE_PYPI_URL', saved.pypi],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await new Promise((r) => registry.close(r));
});

function serverJson(identifier: string | undefined): string {
  return JSON.stringify(
    {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'io.github.user/my-server',
      description: 'A sample MCP server',
      version: '1.0.0',
      packages: [
        { registryType: 'npm', ...(identifier ? { identifier } : {}), version: '1.0.0', runtimeHint: 'node', transport: { type: 'stdio' } },
        { registryType: 'npm', identifier: 'not-published-pkg', version: '0.1.0', runtimeHint: 'mcpscope-no-such-runtime', transport: { type: 'stdio' } },
      ],
    },
    null,
    2,
  );
}

/** The 1-based line of `text` holding `needle` (its first). */
function lineOf(text: string, needle: string): number {
  return text.slice(0, text.indexOf(needle)).split('\n').length;
}

async function paste(page: Page, text: string) {
  await page.getByTestId('import-registry-text').fill(text);
  await page.getByTestId('registry-validate').click();
}

test('import server.json: the line of each problem, the package verified, no stale results', async ({ page, backend }) => {
  await openUi(page, backend);
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-registry-open').click();

  // A package without its identifier: the finding names its line, the editor marks it.
  const broken = serverJson(undefined);
  const pkgLine = lineOf(broken, '"registryType": "npm"') - 1; // the package object's "{"
  await paste(page, broken);
  const problem = page.locator('[data-testid=registry-check][data-level=error]', { hasText: 'identifier' });
  await expect(problem).toHaveAttribute('data-line', String(pkgLine));
  await expect(page.locator(`[data-testid=editor-line-mark][data-line="${pkgLine}"]`)).toHaveAttribute('data-level', 'error');
  await expect(page.getByTestId('registry-validation')).not.toContainText('Package: ?');
  await expect(page.getByTestId('registry-transport')).toHaveText(/Transport: stdio/);
  // Its line number selects that line in the editor.
  await problem.getByTestId('registry-check-line').click();
  const selected = await page.getByTestId('import-registry-text').evaluate((t: HTMLTextAreaElement) => t.value.slice(t.selectionStart, t.selectionEnd));
  expect(selected.trim()).toBe('{');

  // Fixed: the package is found on npm at its version, the latest named; node is on the PATH.
  await paste(page, serverJson('my-mcp-server'));
  const verified = page.getByTestId('registry-verified');
  await expect(verified.first()).toHaveAttribute('data-level', 'ok');
  await expect(verified.first()).toContainText('Package found: my-mcp-server@1.0.0 (npm); the latest version is 1.2.0');
  await expect(verified.nth(1)).toContainText('Command node found');
  await expect(page.getByTestId('editor-line-mark')).toHaveCount(0);
  await shot(page, 'import-registry-verified');

  // The other package: not on npm, and its runtime is not installed.
  await page.getByTestId('registry-package').nth(1).click();
  await expect(verified.first()).toHaveAttribute('data-level', 'error');
  await expect(verified.first()).toContainText('Package not found: not-published-pkg is not on npm');
  await expect(verified.nth(1)).toContainText('mcpscope-no-such-runtime is not on the PATH');

  // A syntax error: its line is marked, and the results of the previous text are gone.
  const bad = serverJson('my-mcp-server').replace('"version": "1.0.0",\n  "packages"', '"version": "1.0.0"\n  "packages"');
  await paste(page, bad);
  await expect(page.getByTestId('registry-error')).toContainText('not valid JSON');
  await expect(page.getByTestId('registry-validation')).toHaveCount(0);
  await expect(page.getByTestId('registry-package')).toHaveCount(0);
  // Scrolled into view although the paste left the editor at its end.
  await expect(page.locator(`[data-testid=editor-line-mark][data-line="${lineOf(bad, '"packages"')}"]`)).toBeInViewport();
  await shot(page, 'import-registry-syntax-error');
});
