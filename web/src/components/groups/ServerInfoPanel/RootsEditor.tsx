import { Alert, Button, Code, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { ApiError, api } from '../../../lib/api';
import { addProblems, rootUriOf, tidyRoot, type RootRow, type RootsAnswer } from '../../../utils/roots';

export interface RootsEditorProps {
  /** The server's catalog name. */
  server: string;
  /** The catalog entry's `roots` (a change, e.g. from another tab, reloads the editor). */
  configured?: RootRow[];
  /** How many roots the server is answered with now (Server Info's Roots capability line). */
  onCount?: (n: number) => void;
}

/**
 * 003's Roots Configuration, in Server Info: the roots the server is told of (`roots/list`, and a
 * modern `input_required` round's `roots/list`), each with its name and `file://` URI; add one
 * by its path (absolute, or from `~`; the URI it becomes is shown as it is typed — a browser
 * cannot browse this machine's directories, so there is no Browse button) or its URI (checked
 * before it is sent, the error under its field) or remove one, saved at once to the
 * catalog entry's `roots`. The backend answers the server from this list at the moment it asks,
 * and tells a connected legacy server with `notifications/roots/list_changed`.
 */
export function RootsEditor({ server, configured, onCount }: RootsEditorProps) {
  const [view, setView] = useState<RootsAnswer | null>(null);
  const [path, setPath] = useState('');
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
      .then((v) => live && setView((prev) => ({ ...v, listChangedSent: prev?.listChangedSent, notSaved: prev?.notSaved, home: v.home ?? prev?.home })))
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
        const answer = await api.setRoots(server, roots);
        setView((prev) => ({ ...answer, home: answer.home ?? prev?.home }));
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
  useEffect(() => {
    if (view) onCount?.(view.roots.length);
  }, [view, onCount]);
  const target = path.trim() ? rootUriOf(path, view?.home) : null;
  const add = async () => {
    const typed = rootUriOf(path, view?.home);
    if ('error' in typed) {
      setErrors({ uri: typed.error });
      return;
    }
    const row = { uri: typed.uri, name };
    const problems = addProblems(roots, row);
    setErrors(problems);
    if (problems.uri || problems.name) return;
    if (await save([...roots, tidyRoot(row)])) {
      setPath('');
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
          label="Path"
          placeholder="/home/me/project, ~/project or file:///home/me/project"
          size="xs"
          style={{ flex: 1 }}
          value={path}
          error={errors.uri}
          description={target && 'uri' in target ? `→ ${target.uri}` : undefined}
          inputWrapperOrder={['label', 'input', 'description', 'error']}
          onChange={(e) => setPath(e.currentTarget.value)}
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
