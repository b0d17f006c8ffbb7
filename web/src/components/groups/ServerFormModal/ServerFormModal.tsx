import { Alert, Button, Fieldset, Group, Modal, NumberInput, SegmentedControl, Select, SimpleGrid, Stack, TextInput, Textarea } from '@mantine/core';
import { useState, type ChangeEvent } from 'react';
import { oauthEntry, oauthFields, oauthFieldsError, type OAuthFields } from '../../../utils/auth';
import { STORED, joinSecrets, splitSecrets } from '../../../utils/secrets';
import type { CatalogEntry, EraPreference, Transport } from '../../../utils/types';
import { ApiError } from '../../../lib/api';

export interface ServerFormModalProps {
  opened: boolean;
  /** Editing an existing server, or adding one. */
  initial?: { name: string; entry: CatalogEntry };
  onClose: () => void;
  onSubmit: (name: string, entry: CatalogEntry) => Promise<void>;
}

function splitArgs(s: string): string[] {
  // Shell-like split: spaces separate, quotes group.
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

function joinArgs(args: string[] | undefined): string {
  return (args ?? []).map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ');
}


/** Add or edit a server by hand. */
export function ServerFormModal({ opened, initial, onClose, onSubmit }: ServerFormModalProps) {
  const e = initial?.entry ?? {};
  const [name, setName] = useState(initial?.name ?? '');
  const [transport, setTransport] = useState<Transport>(e.type ?? (e.url ? 'http' : 'stdio'));
  const [command, setCommand] = useState(e.command ?? '');
  const [args, setArgs] = useState(joinArgs(e.args));
  const envText = splitSecrets(e.env, '=');
  const headerText = splitSecrets(e.headers, ': ');
  const [env, setEnv] = useState(envText.plain);
  const [secretEnv, setSecretEnv] = useState(envText.secret);
  const [secretHeaders, setSecretHeaders] = useState(headerText.secret);
  const [cwd, setCwd] = useState(e.cwd ?? '');
  const [url, setUrl] = useState(e.url ?? '');
  const [headers, setHeaders] = useState(headerText.plain);
  const [era, setEra] = useState<EraPreference>(e.protocolEra ?? 'auto');
  const [timeout, setTimeoutMs] = useState<number | string>(e.requestTimeout ?? '');
  const [oauth, setOauth] = useState<OAuthFields>(oauthFields(e.oauth));
  const oauthError = transport === 'stdio' ? null : oauthFieldsError(oauth);
  const setO = (k: keyof OAuthFields) => (ev: ChangeEvent<HTMLInputElement>) => {
    const v = ev.currentTarget.value;
    setOauth((o) => ({ ...o, [k]: v }));
  };
  const [error, setError] = useState<string | null>(null);
  // The backend's refusal of the URL (it owns the rule), shown on the field it is about.
  const [urlError, setUrlError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const entry: CatalogEntry = { type: transport, protocolEra: era };
    if (transport === 'stdio') {
      entry.command = command.trim();
      const a = splitArgs(args);
      if (a.length) entry.args = a;
      const envObj = joinSecrets(env, secretEnv, '=', e.env);
      if (Object.keys(envObj).length) entry.env = envObj;
      if (cwd.trim()) entry.cwd = cwd.trim();
    } else {
      entry.url = url.trim();
      const h = joinSecrets(headers, secretHeaders, ':', e.headers);
      if (Object.keys(h).length) entry.headers = h;
      const o = oauthEntry(oauth);
      if (o) entry.oauth = o;
    }
    if (typeof timeout === 'number') entry.requestTimeout = timeout;
    setBusy(true);
    setError(null);
    setUrlError(null);
    try {
      await onSubmit(name.trim(), entry);
      onClose();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof ApiError && err.body.field === 'url') setUrlError(message);
      else setError(message);
    } finally {
      setBusy(false);
    }
  };

  const valid = name.trim() !== '' && (transport === 'stdio' ? command.trim() !== '' : url.trim() !== '' && !oauthError);
  return (
    <Modal opened={opened} onClose={onClose} title={initial ? `Edit ${initial.name}` : 'Add server'} data-testid="server-form">
      <Stack gap="sm">
        <TextInput label="Name" withAsterisk value={name} onChange={(ev) => setName(ev.currentTarget.value)} data-testid="server-form-name" />
        <SegmentedControl
          value={transport}
          onChange={(v) => setTransport(v as Transport)}
          data={[
            { value: 'stdio', label: 'STDIO' },
            { value: 'http', label: 'Streamable HTTP' },
            { value: 'sse', label: 'HTTP+SSE (legacy)' },
          ]}
          data-testid="server-form-transport"
        />
        {transport === 'stdio' ? (
          <>
            <TextInput label="Command" withAsterisk value={command} onChange={(ev) => setCommand(ev.currentTarget.value)} placeholder="npx" data-testid="server-form-command" />
            <TextInput label="Arguments" value={args} onChange={(ev) => setArgs(ev.currentTarget.value)} placeholder="-y @modelcontextprotocol/server-everything" data-testid="server-form-args" />
            <Textarea label="Environment" description="KEY=value, one a line" value={env} onChange={(ev) => setEnv(ev.currentTarget.value)} autosize minRows={2} ff="monospace" data-testid="server-form-env" />
            <Textarea
              label="Secret environment"
              description={`KEY=value, one a line: kept in the keyring or the encrypted secret file, never in mcp.json; ${STORED} is a stored value (leave it to keep it)`}
              value={secretEnv}
              onChange={(ev) => setSecretEnv(ev.currentTarget.value)}
              autosize
              minRows={1}
              ff="monospace"
              data-testid="server-form-secret-env"
            />
            <TextInput label="Working directory" value={cwd} onChange={(ev) => setCwd(ev.currentTarget.value)} />
          </>
        ) : (
          <>
            <TextInput
              label="URL"
              withAsterisk
              value={url}
              onChange={(ev) => {
                setUrl(ev.currentTarget.value);
                setUrlError(null);
              }}
              error={urlError}
              placeholder="http://127.0.0.1:3000/mcp"
              data-testid="server-form-url"
            />
            <Textarea label="Headers" description="Name: value, one a line" value={headers} onChange={(ev) => setHeaders(ev.currentTarget.value)} autosize minRows={2} ff="monospace" />
            <Textarea
              label="Secret headers"
              description={`Name: value, one a line: kept in the keyring or the encrypted secret file, never in mcp.json; ${STORED} is a stored value`}
              value={secretHeaders}
              onChange={(ev) => setSecretHeaders(ev.currentTarget.value)}
              autosize
              minRows={1}
              ff="monospace"
              data-testid="server-form-secret-headers"
            />
            <Fieldset legend="OAuth" p="xs" data-testid="server-form-oauth">
              <SimpleGrid cols={2} spacing="xs" verticalSpacing={4}>
                <TextInput
                  size="xs"
                  label="Client ID"
                  description="a pre-registered public client"
                  placeholder="dynamic registration"
                  value={oauth.clientId}
                  onChange={setO('clientId')}
                  data-testid="server-form-oauth-client-id"
                />
                <TextInput
                  size="xs"
                  label="Client metadata URL"
                  description="https; the URL is the client id"
                  placeholder="https://app.example/client.json"
                  value={oauth.clientMetadataUrl}
                  onChange={setO('clientMetadataUrl')}
                  error={oauthError}
                  data-testid="server-form-oauth-metadata-url"
                />
                <TextInput
                  size="xs"
                  label="Scopes"
                  description="space-separated; default: the challenge's"
                  placeholder="mcp:read mcp:write"
                  value={oauth.scope}
                  onChange={setO('scope')}
                  data-testid="server-form-oauth-scope"
                />
                <TextInput
                  size="xs"
                  label="Profile"
                  description="keeps identities apart in the secret store"
                  placeholder="default"
                  value={oauth.profile}
                  onChange={setO('profile')}
                  data-testid="server-form-oauth-profile"
                />
              </SimpleGrid>
            </Fieldset>
          </>
        )}
        <Group grow>
          <Select
            label="Protocol"
            value={era}
            onChange={(v) => v && setEra(v as EraPreference)}
            data={[
              { value: 'auto', label: 'Auto' },
              { value: 'modern', label: '2026-07-28' },
              { value: 'legacy', label: '2025-11-25' },
            ]}
            allowDeselect={false}
            data-testid="server-form-protocol"
            comboboxProps={{ withinPortal: true }}
          />
          <NumberInput label="Request timeout (ms)" value={timeout} onChange={setTimeoutMs} min={0} placeholder="default" />
        </Group>
        {error && (
          <Alert color="red" p="xs" data-testid="server-form-error">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={!valid} loading={busy} data-testid="server-form-save">
            {initial ? 'Save' : 'Add Server'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
