import { Alert, Button, Code, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { ApiError, api } from '../../../lib/api';
import { addProblems, tidyRoot, type RootRow, type RootsAnswer } from '../../../utils/roots';

export interface RootsEditorProps {
  /** The server's catalog name. */
  server: string;
  /** The catalog entry's `roots` (a change, e.g. from another tab, reloads the editor). */
  configured?: RootRow[];
}

/**
 * 003's Roots Configuration, in Server Info: the roots the server is told of (`roots/list`, and a
 * modern `input_required` round's `roots/list`), each with its name and `file://` URI; add one
 * (checked before it is sent, the error under its field) or remove one, saved at once to the
 * catalog entry's `roots`. The backend answers the server from this list at the moment it asks,
 * and tells a connected legacy server with `notifications/roots/list_changed`.
 */
export function RootsEditor({ server, configured }: RootsEditorProps) {
  const [view, setView] = useState<RootsAnswer | null>(null);
  const [uri, setUri] = useState('');
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<{ uri?: string; name?: string }>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const configuredKey = JSON.stringify(configured ?? []);

  useEffect(() => {
    let live = true;
    api
      .roots(server)
      // A reload after our own save (its catalog event) keeps what that save told the server.
      .then((v) => live && setView((prev) => ({ ...v, listChangedSent: prev?.listChangedSent, notSaved: prev?.notSaved })))
      .catch((e) => live && setFailure(e instanceof ApiError ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [server, configuredKey]);

  const save = useCallback(
    async (roots: RootRow[]) => {
      setBusy(true);
      setFailure(null);
      try {
        setView(await api.setRoots(server, roots));
        return true;
      } catch (e) {
        const message = e instanceof ApiError ? e.message : String(e);
        setFailure(message);
        return false;
      } finally {
        setBusy(false);
      }
    },
    [server],
  );

  const roots = view?.roots ?? [];
  const add = async () => {
    const row = { uri, name };
    const problems = addProblems(roots, row);
    setErrors(problems);
    if (problems.uri || problems.name) return;
    if (await save([...roots, tidyRoot(row)])) {
      setUri('');
      setName('');
    }
  };

  return (
    <Stack gap="xs" data-testid="roots-editor" data-count={roots.length}>
      <Title order={6}>Roots</Title>
      <Text size="sm" c="dimmed">
        Filesystem roots exposed to the server (answered to <Code>roots/list</Code> in both eras):
      </Text>
      {roots.length === 0 ? (
        <Text size="sm" data-testid="roots-empty">
          No roots configured: the server is told there are none.
        </Text>
      ) : (
        <Table fz="sm" verticalSpacing={2} data-testid="roots-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>URI</Table.Th>
              <Table.Th w={90}>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {roots.map((r) => (
              <Table.Tr key={r.uri} data-testid="root-row" data-uri={r.uri}>
                <Table.Td>{r.name ?? <Text span c="dimmed" size="sm">(no name)</Text>}</Table.Td>
                <Table.Td>
                  <Code>{r.uri}</Code>
                </Table.Td>
                <Table.Td>
                  <Button
                    size="compact-xs"
                    variant="default"
                    color="red"
                    disabled={busy}
                    aria-label={`Remove root ${r.name ?? r.uri}`}
                    onClick={() => void save(roots.filter((x) => x.uri !== r.uri))}
                  >
                    Remove
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Group align="flex-start" gap="xs" wrap="nowrap">
        <TextInput
          label="Name"
          placeholder="Project"
          size="xs"
          w={160}
          value={name}
          error={errors.name}
          onChange={(e) => setName(e.currentTarget.value)}
          data-testid="root-name-input"
        />
        <TextInput
          label="URI"
          placeholder="file:///home/me/project"
          size="xs"
          style={{ flex: 1 }}
          value={uri}
          error={errors.uri}
          onChange={(e) => setUri(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && void add()}
          data-testid="root-uri-input"
        />
        <Button size="xs" mt={22} onClick={() => void add()} loading={busy} data-testid="root-add">
          Add Root
        </Button>
      </Group>
      {failure && (
        <Alert color="red" p="xs" data-testid="roots-error">
          {failure}
        </Alert>
      )}
      {view && <RootsStatus view={view} />}
      <Text size="xs" c="orange">
        Roots give the server access to these directories. Only add directories you trust the server to access.
      </Text>
    </Stack>
  );
}

/** Where the list lives and what the last save told the server. */
function RootsStatus({ view }: { view: RootsAnswer }) {
  return (
    <Text size="xs" c="dimmed" data-testid="roots-status" data-list-changed={view.listChangedSent ? 'true' : 'false'}>
      {view.persisted ? 'Saved in the catalog entry (roots).' : `For this run only: ${view.notSaved ?? 'the catalog is read-only'}.`}
      {view.listChangedSent && ' notifications/roots/list_changed sent to the server.'}
    </Text>
  );
}
