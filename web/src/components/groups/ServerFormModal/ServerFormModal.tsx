import { Alert, Button, Group, Modal, NumberInput, SegmentedControl, Select, Stack, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import type { CatalogEntry, EraPreference, Transport } from '../../../utils/types';

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

function parsePairs(text: string, sep: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(sep);
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

function pairsText(obj: Record<string, string> | undefined, sep: '=' | ': '): string {
  return Object.entries(obj ?? {})
    .map(([k, v]) => `${k}${sep}${v}`)
    .join('\n');
}

/** Add or edit a server by hand. */
export function ServerFormModal({ opened, initial, onClose, onSubmit }: ServerFormModalProps) {
  const e = initial?.entry ?? {};
  const [name, setName] = useState(initial?.name ?? '');
  const [transport, setTransport] = useState<Transport>(e.type ?? (e.url ? 'http' : 'stdio'));
  const [command, setCommand] = useState(e.command ?? '');
  const [args, setArgs] = useState(joinArgs(e.args));
  const [env, setEnv] = useState(pairsText(e.env, '='));
  const [cwd, setCwd] = useState(e.cwd ?? '');
  const [url, setUrl] = useState(e.url ?? '');
  const [headers, setHeaders] = useState(pairsText(e.headers, ': '));
  const [era, setEra] = useState<EraPreference>(e.protocolEra ?? 'auto');
  const [timeout, setTimeoutMs] = useState<number | string>(e.requestTimeout ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const entry: CatalogEntry = { type: transport, protocolEra: era };
    if (transport === 'stdio') {
      entry.command = command.trim();
      const a = splitArgs(args);
      if (a.length) entry.args = a;
      const envObj = parsePairs(env, '=');
      if (Object.keys(envObj).length) entry.env = envObj;
      if (cwd.trim()) entry.cwd = cwd.trim();
    } else {
      entry.url = url.trim();
      const h = parsePairs(headers, ':');
      if (Object.keys(h).length) entry.headers = h;
    }
    if (typeof timeout === 'number') entry.requestTimeout = timeout;
    setBusy(true);
    setError(null);
    try {
      await onSubmit(name.trim(), entry);
      onClose();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const valid = name.trim() !== '' && (transport === 'stdio' ? command.trim() !== '' : url.trim() !== '');
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
            <Textarea label="Environment" description="KEY=value, one a line" value={env} onChange={(ev) => setEnv(ev.currentTarget.value)} autosize minRows={2} ff="monospace" />
            <TextInput label="Working directory" value={cwd} onChange={(ev) => setCwd(ev.currentTarget.value)} />
          </>
        ) : (
          <>
            <TextInput label="URL" withAsterisk value={url} onChange={(ev) => setUrl(ev.currentTarget.value)} placeholder="http://127.0.0.1:3000/mcp" data-testid="server-form-url" />
            <Textarea label="Headers" description="Name: value, one a line" value={headers} onChange={(ev) => setHeaders(ev.currentTarget.value)} autosize minRows={2} ff="monospace" />
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
