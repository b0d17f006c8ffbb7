// Server list: cards, add manually, edit, remove with confirmation, import mcp.json, import a
// registry server.json, connect with the toggle, Server Info.
import { expect, openUi, shot, test } from '../fixtures';

test('server list: add, edit, import, registry, remove, connect and server info', async ({ page, backend }) => {
  await openUi(page, backend);
  const demo = page.locator('[data-testid=server-card][data-server=demo]');
  await expect(demo).toHaveAttribute('data-status', 'disconnected');
  await expect(demo.getByTestId('transport')).toHaveText(/stdio/i);
  await expect(demo.getByTestId('server-target')).toContainText('demo-server');

  // Add manually.
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('add-manually').click();
  await page.getByTestId('server-form-name').fill('broken-http');
  await page.getByTestId('server-form-transport').getByText('Streamable HTTP').click();
  await page.getByTestId('server-form-url').fill('http://127.0.0.1:9/mcp');
  await page.getByTestId('server-form-save').click();
  const broken = page.locator('[data-testid=server-card][data-server="broken-http"]');
  await expect(broken).toHaveAttribute('data-status', 'disconnected');
  await expect(broken.getByTestId('server-target')).toHaveText('http://127.0.0.1:9/mcp');

  // A failing connection shows the inline error with its retry count.
  await broken.getByTestId('server-toggle').click();
  await expect(broken).toHaveAttribute('data-status', 'failed');
  await expect(broken.getByTestId('inline-error')).toBeVisible();
  await expect(broken.getByTestId('status-label')).toContainText('Failed (');
  // The card and the toast link the troubleshooting guide of the error's code, served by the
  // backend itself (it opens offline), in a tab of its own.
  const guide = broken.getByTestId('troubleshooting-link');
  await expect(guide).toHaveAttribute('data-code', 'unreachable');
  await expect(page.locator('.mantine-Notification-root [data-testid=troubleshooting-link]').first()).toHaveAttribute('href', '/troubleshooting/unreachable');
  const [guidePage] = await Promise.all([page.context().waitForEvent('page'), guide.click()]);
  await expect(guidePage.locator('h1')).toHaveText(/^unreachable: /);
  await guidePage.close();

  // Edit: rename.
  await broken.getByTestId('server-edit').click();
  await page.getByTestId('server-form-name').fill('renamed-http');
  await page.getByTestId('server-form-save').click();
  await expect(page.locator('[data-testid=server-card][data-server="renamed-http"]')).toBeVisible();

  // Import a pasted mcp.json (Claude Desktop shape).
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-config-open').click();
  await page.getByTestId('import-config-text').fill(
    JSON.stringify({ mcpServers: { imported: { command: 'node', args: ['server.js'], env: { A: '1' } } } }, null, 2),
  );
  await page.getByTestId('import-config-run').click();
  await expect(page.getByTestId('import-config-result')).toContainText('imported');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.locator('[data-testid=server-card][data-server=imported]')).toBeVisible();

  // Import a registry server.json: validation results, package choice, env var form.
  await page.getByTestId('add-server-menu').click();
  await page.getByTestId('import-registry-open').click();
  await page.getByTestId('import-registry-text').fill(
    JSON.stringify(
      {
        $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
        name: 'io.github.user/my-server',
        description: 'A sample MCP server',
        version: '1.0.0',
        packages: [
          {
            registryType: 'npm',
            identifier: 'my-mcp-server',
            version: '1.0.0',
            runtimeHint: 'npx',
            transport: { type: 'stdio' },
            environmentVariables: [{ name: 'API_KEY', description: 'API key', isRequired: true, isSecret: true }],
          },
          { registryType: 'pypi', identifier: 'my-mcp-server', version: '1.0.0', runtimeHint: 'uvx', transport: { type: 'stdio' } },
        ],
      },
      null,
      2,
    ),
  );
  await page.getByTestId('registry-validate').click();
  await expect(page.getByTestId('registry-validation')).toBeVisible();
  await expect(page.getByTestId('registry-package')).toHaveCount(2);
  await expect(page.getByTestId('registry-add')).toBeDisabled();
  await page.locator('[data-testid=registry-env][data-env=API_KEY]').fill('sk-test');
  await expect(page.getByTestId('registry-name')).toHaveValue('my-server');
  await shot(page, 'servers-import-registry');
  await page.getByTestId('registry-add').click();
  await expect(page.locator('[data-testid=server-card][data-server="my-server"]')).toBeVisible();
  await expect(page.locator('[data-testid=server-card][data-server="my-server"] [data-testid=server-target]')).toContainText('my-mcp-server');

  // Remove with confirmation.
  await page.locator('[data-testid=server-card][data-server=imported] [data-testid=server-remove]').click();
  await page.getByTestId('confirm').click();
  await expect(page.locator('[data-testid=server-card][data-server=imported]')).toHaveCount(0);
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await shot(page, 'servers');

  // Server Info of the demo server once connected.
  await demo.getByTestId('server-toggle').click();
  await expect(page.getByTestId('main')).toHaveAttribute('data-view', 'server');
  await page.getByTestId('server-menu').click();
  await page.getByTestId('menu-server-info').click();
  const info = page.getByTestId('server-info-panel');
  await expect(info).toHaveAttribute('data-connected', 'true');
  await expect(page.getByTestId('info-protocol')).toHaveText(/\d{4}-\d{2}-\d{2}/);
  await expect(page.locator('[data-testid=capability][data-capability=tools]')).toHaveAttribute('data-present', 'true');
  await shot(page, 'server-info');
});
