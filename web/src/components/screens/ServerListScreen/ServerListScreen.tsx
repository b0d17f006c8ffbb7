import { Button, EmptyState, Group, Menu, Modal, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { AuthView, CatalogEntry, ImportResult, RegistryImport, ServerInfo, ServerView } from '../../../utils/types';
import type { ListCounts } from '../../../utils/state';
import { AuthPanel, type AuthActions } from '../../groups/AuthPanel/AuthPanel';
import { ConfirmModal } from '../../groups/ConfirmModal/ConfirmModal';
import { ImportConfigModal } from '../../groups/ImportConfigModal/ImportConfigModal';
import { ImportRegistryModal } from '../../groups/ImportRegistryModal/ImportRegistryModal';
import { ServerCard } from '../../groups/ServerCard/ServerCard';
import { ServerFormModal } from '../../groups/ServerFormModal/ServerFormModal';
import { ServerInfoPanel } from '../../groups/ServerInfoPanel/ServerInfoPanel';

export interface ServerListScreenProps {
  servers: ServerView[];
  infos: Record<string, ServerInfo | null>;
  /** What each server's lists hold, for Server Info's counts. */
  counts: Record<string, ListCounts>;
  onConnect: (name: string) => void;
  onDisconnect: (name: string) => void;
  onOpen: (name: string) => void;
  onLoadInfo: (name: string) => void;
  onAdd: (name: string, entry: CatalogEntry) => Promise<unknown>;
  onUpdate: (oldName: string, name: string, entry: CatalogEntry) => Promise<unknown>;
  onRemove: (name: string) => void;
  onImportConfig: (text: string) => Promise<ImportResult>;
  onImportRegistry: (text: string) => Promise<RegistryImport>;
  onAddFromRegistry: (text: string, choice: { package?: number; remote?: number }, name: string, env: Record<string, string>) => Promise<ServerView>;
  /** The last authorization view of each server, and the Authorization panel's calls. */
  auth: Record<string, AuthView>;
  authActions: AuthActions;
}

type Dialog =
  | { kind: 'add' }
  | { kind: 'edit'; server: ServerView }
  | { kind: 'import' }
  | { kind: 'registry' }
  | { kind: 'remove'; name: string }
  | { kind: 'info'; name: string }
  | null;

/** The server list: a responsive grid of cards, and the ways to add servers (003_*). */
export function ServerListScreen(p: ServerListScreenProps) {
  const [dialog, setDialog] = useState<Dialog>(null);
  const close = () => setDialog(null);
  const infoServer = dialog?.kind === 'info' ? p.servers.find((s) => s.name === dialog.name) : undefined;
  return (
    <Stack p="md" gap="md" data-testid="screen-servers">
      <Group justify="space-between">
        <Title order={3}>MCP servers</Title>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Button data-testid="add-server-menu" rightSection="▾">
              + Add Server
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={() => setDialog({ kind: 'add' })} data-testid="add-manually">
              Add manually
            </Menu.Item>
            <Menu.Item onClick={() => setDialog({ kind: 'import' })} data-testid="import-config-open">
              Import config (mcp.json)
            </Menu.Item>
            <Menu.Item onClick={() => setDialog({ kind: 'registry' })} data-testid="import-registry-open">
              Import server.json (MCP Registry)
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Group>
      {p.servers.length === 0 ? (
        <EmptyState title="No servers yet" description="Add a server by hand, or import an mcp.json or a registry server.json." data-testid="no-servers" />
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md" data-testid="server-grid">
          {p.servers.map((s) => (
            <ServerCard
              key={s.name}
              server={s}
              version={p.infos[s.name]?.serverInfo?.version as string | undefined}
              onToggle={(on) => (on ? p.onConnect(s.name) : p.onDisconnect(s.name))}
              onOpen={() => p.onOpen(s.name)}
              onInfo={() => {
                p.onLoadInfo(s.name);
                setDialog({ kind: 'info', name: s.name });
              }}
              onEdit={() => setDialog({ kind: 'edit', server: s })}
              onRemove={() => setDialog({ kind: 'remove', name: s.name })}
            />
          ))}
        </SimpleGrid>
      )}
      <Text size="xs" c="dimmed">
        The catalog is an mcp.json file ({'{"mcpServers": {…}}'}); changes here are written to it.
      </Text>
      {dialog?.kind === 'add' && <ServerFormModal opened onClose={close} onSubmit={async (n, e) => void (await p.onAdd(n, e))} />}
      {dialog?.kind === 'edit' && (
        <ServerFormModal
          opened
          initial={{ name: dialog.server.name, entry: dialog.server.entry }}
          onClose={close}
          onSubmit={async (n, e) => void (await p.onUpdate(dialog.server.name, n, e))}
        />
      )}
      {dialog?.kind === 'import' && <ImportConfigModal opened onClose={close} onImport={p.onImportConfig} />}
      {dialog?.kind === 'registry' && <ImportRegistryModal opened onClose={close} onValidate={p.onImportRegistry} onAdd={p.onAddFromRegistry} />}
      <ConfirmModal
        opened={dialog?.kind === 'remove'}
        title="Remove server"
        message={dialog?.kind === 'remove' ? `Remove "${dialog.name}" from the catalog? It is disconnected first.` : ''}
        confirmLabel="Remove"
        onConfirm={() => dialog?.kind === 'remove' && p.onRemove(dialog.name)}
        onClose={close}
      />
      <Modal opened={!!infoServer} onClose={close} title="Server Information" data-testid="server-info-modal">
        {infoServer && (
          <ServerInfoPanel
            server={infoServer}
            info={p.infos[infoServer.name] ?? null}
            counts={p.counts[infoServer.name]}
            authPanel={<AuthPanel server={infoServer} view={p.auth[infoServer.name] ?? null} actions={p.authActions} />}
          />
        )}
      </Modal>
    </Stack>
  );
}
