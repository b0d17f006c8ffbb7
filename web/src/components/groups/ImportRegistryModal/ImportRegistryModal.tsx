import { Alert, Anchor, Button, Divider, FileButton, Group, Modal, PasswordInput, Radio, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMemo, useRef, useState } from 'react';
import { api } from '../../../lib/api';
import { readFile } from '../../../lib/browser';
import type { RegistryCheck, RegistryImport, ServerView } from '../../../utils/types';
import { MarkedEditor, type MarkedEditorHandle } from './MarkedEditor';
import { lineMarks, syntaxLine, transportOf } from './registry';

export interface ImportRegistryModalProps {
  opened: boolean;
  onClose: () => void;
  onValidate: (text: string) => Promise<RegistryImport>;
  onAdd: (text: string, choice: { package?: number; remote?: number }, name: string, env: Record<string, string>) => Promise<ServerView>;
}

const SYMBOL: Record<string, { s: string; c: string }> = {
  ok: { s: '✓', c: 'green' },
  info: { s: 'ℹ', c: 'blue' },
  warning: { s: '⚠', c: 'yellow' },
  error: { s: '✗', c: 'red' },
};

/** One line of the Validation Results; its line number selects that line in the editor. */
function CheckLine({ check, onLine, testId = 'registry-check' }: { check: RegistryCheck; onLine?: (line: number) => void; testId?: string }) {
  const sym = SYMBOL[check.level] ?? SYMBOL.info;
  const line = check.line;
  return (
    <Text size="sm" data-testid={testId} data-level={check.level} data-line={line ?? undefined}>
      <Text span c={sym.c} fw={700}>
        {sym.s}
      </Text>{' '}
      {check.message}
      {check.path || line ? (
        <Text span c="dimmed" size="xs">
          {' '}
          (
          {line ? (
            <Anchor component="button" type="button" size="xs" onClick={() => onLine?.(line)} data-testid="registry-check-line">
              line {line}
            </Anchor>
          ) : null}
          {line && check.path ? ', ' : ''}
          {check.path})
        </Text>
      ) : null}
    </Text>
  );
}

/** Import an MCP Registry server.json: validation, package choice, environment variables. */
export function ImportRegistryModal({ opened, onClose, onValidate, onAdd }: ImportRegistryModalProps) {
  const [text, setText] = useState('');
  const [res, setRes] = useState<RegistryImport | null>(null);
  const [choice, setChoice] = useState<string>('');
  const [env, setEnv] = useState<Record<string, string>>({});
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // What the package's registry, the PATH or the remote said of the choice (null: asking).
  const [checks, setChecks] = useState<RegistryCheck[] | null>(null);
  const asked = useRef(0);
  const editor = useRef<MarkedEditorHandle>(null);

  /** Ask the backend about the choice `c` (`package:0`, `remote:1`); only the last answer counts. */
  const verify = (c: string) => {
    const [k, i] = c.split(':');
    if (!k) return;
    const n = ++asked.current;
    setChecks(null);
    api.verifyRegistry(text, k === 'package' ? { package: Number(i) } : { remote: Number(i) }).then(
      (r) => n === asked.current && setChecks(r.checks),
      (e) => n === asked.current && setChecks([{ level: 'warning', message: `Could not verify: ${e instanceof Error ? e.message : String(e)}` }]),
    );
  };

  const validate = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await onValidate(text);
      setRes(r);
      const first = r.packages[0] ? `package:${r.packages[0].index}` : r.remotes[0] ? `remote:${r.remotes[0].index}` : '';
      const known = [...r.packages.map((p) => `package:${p.index}`), ...r.remotes.map((x) => `remote:${x.index}`)];
      const next = known.includes(choice) ? choice : first;
      setChoice(next);
      verify(next);
      if (!name && r.suggestedName) setName(r.suggestedName);
    } catch (e) {
      // A text that does not parse has no results: the old ones would describe another text.
      setRes(null);
      setChecks(null);
      asked.current++;
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const [kind, idxText] = choice.split(':');
  const idx = Number(idxText);
  const pkg = kind === 'package' ? res?.packages.find((p) => p.index === idx) : undefined;
  const remote = kind === 'remote' ? res?.remotes.find((r) => r.index === idx) : undefined;
  const vars = pkg?.environmentVariables ?? remote?.headers ?? [];
  const missing = vars.filter((v) => v.isRequired && !(env[v.name] ?? v.default ?? '').trim());
  const hasErrors = (res?.validation ?? []).some((c) => c.level === 'error');
  const blocked = pkg && pkg.launchable === false ? pkg.problem ?? 'this package cannot be launched' : null;
  const canAdd = !!res && !!choice && missing.length === 0 && !hasErrors && !blocked && name.trim() !== '';
  const transport = transportOf(pkg, remote);
  const badLine = error ? syntaxLine(error) : null;
  const marks = useMemo(() => {
    const m = lineMarks([...(res?.validation ?? []), ...(checks ?? [])]);
    if (badLine) m.set(badLine, 'error');
    return m;
  }, [res, checks, badLine]);
  const toLine = (line: number) => editor.current?.selectLine(line);
  const firstMark = marks.size > 0 ? Math.min(...marks.keys()) : null;

  const add = async () => {
    setBusy(true);
    setError(null);
    try {
      const values: Record<string, string> = {};
      for (const v of vars) {
        const val = env[v.name] ?? v.default ?? '';
        if (val !== '') values[v.name] = val;
      }
      await onAdd(text, kind === 'package' ? { package: idx } : { remote: idx }, name.trim(), values);
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Import MCP Registry server.json" size="xl" data-testid="import-registry">
      <Stack gap="sm">
        <Text size="sm">Paste server.json content or choose a file:</Text>
        <MarkedEditor ref={editor} value={text} onChange={setText} marks={marks} reveal={firstMark} testId="import-registry-text" label="server.json" />
        <Group justify="flex-end" gap="xs">
          <FileButton onChange={(f) => f && void readFile(f).then(setText)} accept="application/json,.json">
            {(props) => (
              <Button variant="default" size="xs" {...props}>
                Browse...
              </Button>
            )}
          </FileButton>
          <Button
            variant="subtle"
            size="xs"
            onClick={() => {
              setText('');
              setRes(null);
              setChecks(null);
              setError(null);
            }}
          >
            Clear
          </Button>
        </Group>
        {res && (
          <>
            <Divider label="Validation Results" labelPosition="left" />
            <Stack gap={2} data-testid="registry-validation">
              {hasErrors ? (
                <CheckLine check={{ level: 'error', message: `Validation found ${res.validation.filter((c) => c.level === 'error').length} error(s)` }} />
              ) : (
                <CheckLine check={{ level: 'ok', message: 'Schema validation passed' }} />
              )}
              {res.validation.map((c, i) => (
                <CheckLine key={i} check={c} onLine={toLine} />
              ))}
              {checks === null && (pkg || remote) ? (
                <CheckLine check={{ level: 'info', message: pkg ? `Looking up ${pkg.identifier ?? 'the package'} on ${pkg.registryType ?? 'its registry'}…` : `Asking ${remote?.url ?? 'the remote'}…` }} testId="registry-verifying" />
              ) : (
                (checks ?? []).map((c, i) => <CheckLine key={`v${i}`} check={c} onLine={toLine} testId="registry-verified" />)
              )}
              {pkg?.runtimeHint && <CheckLine check={{ level: 'info', message: `Runtime hint: ${pkg.runtimeHint}` }} />}
              {transport && <CheckLine check={{ level: 'info', message: `Transport: ${transport}` }} testId="registry-transport" />}
              {missing.map((v) => (
                <CheckLine key={v.name} check={{ level: 'warning', message: `Environment variable ${v.name} not set` }} />
              ))}
              {blocked && <CheckLine check={{ level: 'error', message: blocked }} />}
            </Stack>
            <Divider label="Package Selection" labelPosition="left" />
            <Radio.Group
              value={choice}
              onChange={(c) => {
                setChoice(c);
                verify(c);
              }}
            >
              <Stack gap={4}>
                {res.packages.map((p) => (
                  <Radio
                    key={`p${p.index}`}
                    value={`package:${p.index}`}
                    data-testid="registry-package"
                    label={`${p.registryType ?? '?'}: ${p.identifier ?? '?'}${p.version ? `@${p.version}` : ''}${p.runtimeHint ? ` (${p.runtimeHint})` : ''}`}
                  />
                ))}
                {res.remotes.map((r) => (
                  <Radio key={`r${r.index}`} value={`remote:${r.index}`} label={`remote ${r.type ?? ''}: ${r.url ?? ''}`} />
                ))}
              </Stack>
            </Radio.Group>
            {vars.length > 0 && (
              <>
                <Divider label={remote ? 'Headers' : 'Environment Variables'} labelPosition="left" />
                <Stack gap="xs">
                  {vars.map((v) => {
                    if (v.choices && v.choices.length > 0) {
                      return (
                        <Select
                          key={v.name}
                          label={v.name}
                          description={v.description ?? undefined}
                          withAsterisk={v.isRequired}
                          data={v.choices}
                          value={env[v.name] ?? v.default ?? null}
                          data-testid="registry-env"
                          data-env={v.name}
                          onChange={(val) => setEnv((old) => ({ ...old, [v.name]: val ?? '' }))}
                          comboboxProps={{ withinPortal: true }}
                        />
                      );
                    }
                    const Input = v.isSecret ? PasswordInput : TextInput;
                    return (
                      <Input
                        key={v.name}
                        label={v.name}
                        description={v.description ?? undefined}
                        withAsterisk={v.isRequired}
                        placeholder={v.default ?? ''}
                        value={env[v.name] ?? ''}
                        data-testid="registry-env"
                        data-env={v.name}
                        onChange={(e) => {
                          const val = e.currentTarget.value;
                          setEnv((old) => ({ ...old, [v.name]: val }));
                        }}
                      />
                    );
                  })}
                </Stack>
              </>
            )}
            <TextInput label="Server Name" value={name} onChange={(e) => setName(e.currentTarget.value)} data-testid="registry-name" />
          </>
        )}
        {error && (
          <Alert color="red" p="xs" data-testid="registry-error">
            {error}
            {badLine && (
              <Anchor component="button" type="button" size="sm" ml="xs" onClick={() => toLine(badLine)}>
                Show line {badLine}
              </Anchor>
            )}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={validate} loading={busy && !res} disabled={!text.trim()} data-testid="registry-validate">
            {res ? 'Validate Again' : 'Validate'}
          </Button>
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={add} disabled={!canAdd} loading={busy && !!res} data-testid="registry-add">
            Add Server
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
