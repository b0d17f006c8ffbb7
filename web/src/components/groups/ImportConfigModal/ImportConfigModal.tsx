import { Alert, Button, FileButton, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import { readFile } from '../../../lib/browser';
import type { ImportResult } from '../../../utils/types';

export interface ImportConfigModalProps {
  opened: boolean;
  onClose: () => void;
  onImport: (text: string) => Promise<ImportResult>;
}

/** Paste or upload an mcp.json (Claude Desktop / Cursor / VS Code / Inspector shapes). */
export function ImportConfigModal({ opened, onClose, onImport }: ImportConfigModalProps) {
  const [text, setText] = useState('');
  const [result, setResult] = useState<ImportResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(await onImport(text));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Import config (mcp.json)" data-testid="import-config">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          Paste a {'{"mcpServers": {…}}'} file (Claude Desktop, Cursor, the Inspector) or VS Code's {'{"servers": {…}}'}.
        </Text>
        <Textarea
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          autosize
          minRows={8}
          maxRows={20}
          ff="monospace"
          fz="xs"
          spellCheck={false}
          data-testid="import-config-text"
        />
        <Group justify="space-between">
          <Group gap="xs">
            <FileButton onChange={(f) => f && void readFile(f).then(setText)} accept="application/json,.json">
              {(props) => (
                <Button variant="default" size="xs" {...props}>
                  Browse...
                </Button>
              )}
            </FileButton>
            <Button variant="subtle" size="xs" onClick={() => setText('')}>
              Clear
            </Button>
          </Group>
          <Button onClick={run} loading={busy} disabled={!text.trim()} data-testid="import-config-run">
            Import
          </Button>
        </Group>
        {error && <Alert color="red" p="xs">{error}</Alert>}
        {result && (
          <Alert color={result.skipped.length ? 'yellow' : 'green'} p="xs" data-testid="import-config-result">
            <Text size="sm">Added: {result.added.length ? result.added.join(', ') : 'none'}</Text>
            {result.skipped.map((s) => (
              <Text size="xs" key={s.name}>
                Skipped {s.name}: {s.reason}
              </Text>
            ))}
          </Alert>
        )}
      </Stack>
    </Modal>
  );
}
