import { Alert, Badge, Button, Checkbox, Group, NumberInput, Paper, SegmentedControl, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useRef, useState } from 'react';
import { api, ApiError, newRequestId } from '../../../lib/api';
import {
  addSent,
  EMPTY_EDITOR,
  rawTemplate,
  sendBody,
  sentLabel,
  type EditorState,
  type ExperimentalClient,
  type SendResult,
  type SentEntry,
} from '../../../utils/experimental';
import type { JsonObject, ServerInfo } from '../../../utils/types';
import { JsonEditor } from '../../groups/JsonEditor/JsonEditor';
import { CapabilityPanel } from './CapabilityPanel';
import { SendResponse } from './SendResponse';
import { SentHistory } from './SentHistory';

const API_CLIENT: ExperimentalClient = {
  send: api.send,
  cancel: api.cancel,
  capabilities: api.clientCapabilities,
  setCapabilities: api.setClientCapabilities,
  // The protocol selector's route: it reconnects and tells every view to start over (`reset`),
  // so Server Info and the lists are read again from the new connection.
  reconnect: (server, protocol) => api.setProtocolEra(server, protocol),
};

export interface ExperimentalScreenProps {
  server: string;
  /** The connection's Server Info (era, the server's experimental capabilities). */
  info: ServerInfo | null;
  client?: ExperimentalClient;
}

/** Each server's sends of this page's session: kept outside the screen, which a reconnect
 *  (`reset`) draws anew. */
const SESSION_SENT = new Map<string, SentEntry[]>();

/**
 * Experimental (003's "Experimental Features"): the raw JSON-RPC tester — any method, params as
 * JSON, request or notification, the era's envelope added unless "raw" is ticked (then the whole
 * message goes as typed) — the response with its timing, this session's sends, and the client
 * capabilities the next connect advertises. Everything the server sends is drawn as text.
 */
export function ExperimentalScreen({ server, info, client = API_CLIENT }: ExperimentalScreenProps) {
  const [editor, setEditor] = useState<EditorState>(EMPTY_EDITOR);
  const [rawValid, setRawValid] = useState(true);
  const [timeoutMs, setTimeoutMs] = useState<number | ''>('');
  const [result, setResult] = useState<SendResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState<string | null>(null);
  const [sent, setSentState] = useState<SentEntry[]>(() => SESSION_SENT.get(server) ?? []);
  const setSent = (f: (l: SentEntry[]) => SentEntry[]) =>
    setSentState((l) => {
      const next = f(l);
      SESSION_SENT.set(server, next);
      return next;
    });
  // Bumped when the editor is replaced from outside (history reload), so JsonEditor re-reads.
  const [loads, setLoads] = useState(0);
  const started = useRef(0);

  const patch = (p: Partial<EditorState>) => setEditor((e) => ({ ...e, ...p }));
  const toggleRaw = (raw: boolean) => {
    // Ticking raw starts the whole-message editor from the fields, so nothing typed is lost.
    if (raw && !editor.rawText.trim()) patch({ raw, rawText: rawTemplate(editor) });
    else patch({ raw });
  };

  const send = async () => {
    const requestId = newRequestId();
    const form = editor;
    const t = timeoutMs === '' ? undefined : timeoutMs;
    setRunning(requestId);
    setError(null);
    started.current = Date.now();
    try {
      const r = await client.send(server, sendBody(form, t, requestId));
      setResult(r);
      setSent((l) => addSent(l, { at: started.current, label: sentLabel(form), outcome: r.outcome, durationMs: r.durationMs, form }));
    } catch (e) {
      setResult(null);
      setError(e instanceof ApiError ? `${e.code}: ${e.message}` : String(e));
    } finally {
      setRunning(null);
    }
  };

  const reload = (e: SentEntry) => {
    setEditor(e.form);
    setRawValid(true);
    setLoads((n) => n + 1);
  };

  return (
    <Stack p="md" gap="md" data-testid="screen-experimental" className="mcpscope-scroll">
      <Group justify="space-between">
        <Title order={4}>Experimental Features</Title>
        {info && <Badge variant="light" data-testid="exp-era">{info.era} · {info.protocolVersion}</Badge>}
      </Group>
      <Alert color="yellow" variant="light" data-testid="exp-warning" style={{ flexShrink: 0 }}>
        WARNING: These features are non-standard and may change or be removed. What you send here goes to the server as you
        wrote it; a server author tests the server's answers to it.
      </Alert>

      <Paper withBorder p="md" data-testid="exp-tester">
        <Stack gap="sm">
          <Title order={5}>Raw JSON-RPC Tester</Title>
          <Group gap="md" align="flex-end">
            <SegmentedControl
              value={editor.kind}
              onChange={(v) => patch({ kind: v as EditorState['kind'] })}
              disabled={editor.raw}
              data={[
                { value: 'request', label: 'Request' },
                { value: 'notification', label: 'Notification' },
              ]}
              data-testid="exp-kind"
            />
            <Checkbox
              label="Raw: send the whole message exactly as typed (no id, jsonrpc or _meta added; need not be JSON)"
              checked={editor.raw}
              onChange={(e) => toggleRaw(e.currentTarget.checked)}
              data-testid="exp-raw-toggle"
            />
          </Group>
          {editor.raw ? (
            <Textarea
              label="Message"
              description="Sent as these bytes. One request is answered by its own id; anything else shows what came back, or that nothing did."
              autosize
              minRows={8}
              maxRows={24}
              ff="monospace"
              fz="xs"
              spellCheck={false}
              value={editor.rawText}
              onChange={(e) => {
                const t = e.currentTarget.value;
                patch({ rawText: t });
                try {
                  JSON.parse(t);
                  setRawValid(true);
                } catch {
                  setRawValid(false);
                }
              }}
              data-testid="exp-raw"
            />
          ) : (
            <>
              <TextInput
                label="Method"
                value={editor.method}
                onChange={(e) => patch({ method: e.currentTarget.value })}
                placeholder="experimental/myMethod"
                ff="monospace"
                data-testid="exp-method"
              />
              <JsonEditor
                key={loads}
                label="Params"
                description={`The era's envelope is added: jsonrpc${editor.kind === 'request' ? ', an id the engine assigns' : ''}${info?.era === 'modern' && editor.kind === 'request' ? ' and the _meta of every 2026-07-28 request' : ''}.`}
                value={editor.params}
                onChange={(v) => patch({ params: (v ?? undefined) as JsonObject | undefined })}
                testId="exp-params"
              />
            </>
          )}
          {editor.raw && !rawValid && (
            <Text size="xs" c="orange" data-testid="exp-raw-invalid">
              Not valid JSON: it will be sent as it is (that may be what you are testing).
            </Text>
          )}
          <Group gap="sm" align="flex-end">
            <NumberInput
              label="Timeout (ms)"
              description="Empty: the server's"
              value={timeoutMs}
              onChange={(v) => setTimeoutMs(typeof v === 'number' ? v : '')}
              min={0}
              w={160}
              data-testid="exp-timeout"
            />
            <Button onClick={send} loading={running !== null} disabled={!editor.raw && !editor.method.trim()} data-testid="exp-send">
              {editor.raw ? 'Send' : editor.kind === 'request' ? 'Send Request' : 'Send Notification'}
            </Button>
            {running && (
              <Button variant="default" onClick={() => client.cancel(running)} data-testid="exp-cancel">
                Cancel
              </Button>
            )}
          </Group>
          {error && (
            <Alert color="red" variant="light" data-testid="exp-error">
              {error}
            </Alert>
          )}
          {result && <SendResponse result={result} />}
        </Stack>
      </Paper>

      <SentHistory entries={sent} onLoad={reload} />

      <CapabilityPanel server={server} info={info} client={client} onTest={(method) => patch({ raw: false, method })} />
    </Stack>
  );
}
