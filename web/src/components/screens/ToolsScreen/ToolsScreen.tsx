import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Collapse,
  EmptyState,
  Group,
  Loader,
  Popover,
  ScrollArea,
  SegmentedControl,
  Splitter,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import type { Interaction, ToolLint } from '../../../generated/events';
import { modelMayCall, toolVisibility } from '../../../utils/apps';
import { formDrawable, initialValue } from '../../../utils/form';
import type { InteractionAnswer } from '../../../utils/interactions';
import { annotationRows, filterTools, parseMeta, toolBadges, type ToolDef } from '../../../utils/tools';
import type {
  CallHandle,
  FieldError,
  FormField,
  Json,
  JsonObject,
  Prefill,
  ProgressEvent,
  SavedRequest,
  ServerRequestEvent,
} from '../../../utils/types';
import { AnnotationBadges } from '../../elements/AnnotationBadges/AnnotationBadges';
import { QualityBadge, QualityTotal } from '../../elements/QualityBadge/QualityBadge';
import { findingsByIndex } from '../../elements/QualityBadge/quality';
import { VirtualList } from '../../elements/VirtualList/VirtualList';
import { JsonEditor } from '../../groups/JsonEditor/JsonEditor';
import { PendingRequests } from '../../groups/PendingRequests/PendingRequests';
import { RoundsNotice } from '../../groups/RoundsNotice/RoundsNotice';
import { ProgressPanel } from '../../groups/ProgressPanel/ProgressPanel';
import { SchemaForm } from '../../groups/SchemaForm/SchemaForm';
import { ToolResult, type ToolOutcome } from '../../groups/ToolResult/ToolResult';
import { defaultTaskChoice, RunAsTask, runAsTask, TaskCreated, taskSupport, type TaskChoice } from '../TasksScreen/RunAsTask';

export interface ToolsScreenProps {
  server: string;
  tools: ToolDef[] | null;
  excluded: Record<string, string>;
  /** Quality findings of the last tools/list, by tool position (the badges). */
  lint?: ToolLint | null;
  listChanged: boolean;
  progress: Record<string, ProgressEvent>;
  /** Requests the server sent, with the answer each got. */
  serverRequests: ServerRequestEvent[];
  /** What the server asked and waits for, by the view's request id of the call that caused it
   *  (the inline queue under the running call). */
  pendingOf: Record<string, Interaction[]>;
  /** Each server's `serverInfo` (the dialogs name it). */
  serverInfos: Record<string, JsonObject | null>;
  onAnswer: (id: number, answer: InteractionAnswer) => Promise<boolean>;
  prefill: Prefill | null;
  onRefresh: () => void;
  onFormModel: (schema: Json) => Promise<FormField>;
  onValidate: (tool: string, args: Json) => Promise<{ errors: FieldError[] }>;
  /** The output-schema check of a call's result, done where the result is stored. */
  onCheckOutput: (historyId: number, schema: Json) => Promise<{ errors: FieldError[]; unusable?: string }>;
  onCall: (tool: string, args: Json, meta?: JsonObject) => CallHandle;
  onCancel: (requestId: string) => Promise<boolean>;
  /** `notifications/elicitation/complete` ids of this server (a `-32042` card's status). */
  completedElicitations: string[];
  onOpenResource: (uri: string) => void;
  onShowInHistory: (id: number) => void;
  onListSaved: () => Promise<SavedRequest[]>;
  onSave: (name: string, params: Json) => Promise<unknown>;
  onDeleteSaved: (id: number | string) => Promise<unknown>;
}

interface Running {
  requestId: string;
  /** The tool called: its result goes to that tool, whichever is selected when it ends. */
  tool: string;
  startedAt: number;
  cancelling: boolean;
}

/** A tool's last call as the Results pane shows it: the outcome and its output-schema check. */
interface ToolRun {
  outcome: ToolOutcome;
  /** structuredContent checked against outputSchema (null: no outputSchema, or not yet). */
  outputCheck: { errors: FieldError[]; unusable?: string } | null;
}

/** The History entry of a call's outcome, when it has one. */
function historyIdOf(o: ToolOutcome): number | undefined {
  if (o.kind === 'result') return o.historyId;
  if (o.kind === 'error' && typeof o.error.historyId === 'number') return o.error.historyId;
  return undefined;
}

/** What a server request's answer was, in a few words (`{result: {action}}` or `{error}`). */
function answerText(answer: Json): string {
  const a = (answer ?? {}) as JsonObject;
  if (a.error && typeof a.error === 'object') return `refused (${String((a.error as JsonObject).message ?? 'error')})`;
  const r = (a.result ?? {}) as JsonObject;
  return typeof r.action === 'string' ? r.action : 'answered';
}

/** Tools: searchable list, generated form, Validate only, Execute with progress, rich results. */
export function ToolsScreen(p: ToolsScreenProps) {
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const [models, setModels] = useState<Record<string, FormField | { error: string }>>({});
  const [values, setValues] = useState<Record<string, Json | undefined>>({});
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [errors, setErrors] = useState<FieldError[] | null>(null);
  const [metaText, setMetaText] = useState('');
  const [metaOpen, setMetaOpen] = useState(false);
  const [running, setRunning] = useState<Running | null>(null);
  const [now, setNow] = useState(() => Date.now());
  // Each tool's last result, so the pane never shows one tool's output under another's name.
  const [runs, setRuns] = useState<Record<string, ToolRun>>({});
  // "Run as task" per tool, pre-set from its taskSupport: a choice never carries over to another tool.
  const [taskChoices, setTaskChoices] = useState<Record<string, TaskChoice>>({});
  const [leftTab, setLeftTab] = useState<string>('tools');
  const [saved, setSaved] = useState<SavedRequest[] | null>(null);
  const [saveName, setSaveName] = useState('');
  const [saveOpen, setSaveOpen] = useState(false);
  const [prefillSeen, setPrefillSeen] = useState<number | null>(null);

  const tools = p.tools ?? [];
  const filtered = useMemo(() => filterTools(tools, search), [tools, search]);
  // A row's findings by its tool's position in the list (names may repeat).
  const findingsOf = useMemo(() => {
    const byIndex = findingsByIndex(p.lint);
    return new Map(tools.map((t, i) => [t, byIndex.get(i) ?? []]));
  }, [tools, p.lint]);
  const tool = tools.find((t) => t.name === selected) ?? null;
  const excludedReason = selected ? p.excluded[selected] : undefined;
  // An app-only tool (`_meta.ui.visibility` without "model"): only its app may call it (the backend refuses too).
  const appOnly = !!tool && !modelMayCall(toolVisibility(tool._meta));
  const model = selected ? models[selected] : undefined;
  const value = selected ? values[selected] : undefined;
  const meta = parseMeta(metaText);
  const run = selected ? runs[selected] : undefined;
  const asTask = (selected ? taskChoices[selected] : undefined) ?? defaultTaskChoice(tool);
  const setAsTask = (v: TaskChoice) => selected && setTaskChoices((old) => ({ ...old, [selected]: v }));
  const outcome = run?.outcome ?? null;
  const runningHere = !!running && running.tool === selected;
  const setRun = (name: string, fn: (r: ToolRun | undefined) => ToolRun | undefined) =>
    setRuns((old) => {
      const next = { ...old };
      const r = fn(old[name]);
      if (r) next[name] = r;
      else delete next[name];
      return next;
    });

  // Replay from History: select the tool and pre-fill its arguments (adjusting state during render).
  if (p.prefill && p.prefill.nonce !== prefillSeen) {
    setPrefillSeen(p.prefill.nonce);
    if (p.prefill.name) {
      setSelected(p.prefill.name);
      setValues((v) => ({ ...v, [p.prefill!.name!]: p.prefill!.args ?? {} }));
      setMetaText(p.prefill.meta && typeof p.prefill.meta === 'object' ? JSON.stringify(p.prefill.meta, null, 2) : '');
      setMetaOpen(!!p.prefill.meta);
      setErrors(null);
      setLeftTab('tools');
    }
  }

  // Load the form model of the selected tool (once per tool).
  useEffect(() => {
    if (!tool || models[tool.name]) return;
    let live = true;
    p.onFormModel((tool.inputSchema ?? { type: 'object' }) as Json)
      .then((m) => {
        if (!live) return;
        setModels((old) => ({ ...old, [tool.name]: m }));
        setValues((old) => (old[tool.name] === undefined ? { ...old, [tool.name]: initialValue(m) } : old));
      })
      .catch((e: unknown) => live && setModels((old) => ({ ...old, [tool.name]: { error: e instanceof Error ? e.message : String(e) } })));
    return () => {
      live = false;
    };
  }, [tool, models, p.onFormModel]);

  // Elapsed time while a call runs.
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => setNow(Date.now()), 200);
    return () => clearInterval(t);
  }, [running]);

  useEffect(() => {
    if (leftTab !== 'saved') return;
    let live = true;
    p.onListSaved().then((s) => live && setSaved(s.filter((x) => x.server === p.server && x.method === 'tools/call')));
    return () => {
      live = false;
    };
  }, [leftTab, p.onListSaved, p.server]);

  const setValue = (v: Json | undefined) => {
    if (!selected) return;
    setValues((old) => ({ ...old, [selected]: v }));
  };

  const validate = async () => {
    if (!tool) return;
    try {
      const r = await p.onValidate(tool.name, (value ?? {}) as Json);
      setErrors(r.errors);
    } catch (e) {
      setErrors([{ path: '', message: e instanceof Error ? e.message : String(e) }]);
    }
  };

  const execute = () => {
    if (!tool || running) return;
    const h = asTask.on ? runAsTask(p.server, tool.name, (value ?? {}) as Json, asTask.ttlMs) : p.onCall(tool.name, (value ?? {}) as Json, meta.value);
    const startedAt = Date.now();
    const toolAtCall = tool;
    const name = tool.name;
    setRunning({ requestId: h.requestId, tool: name, startedAt, cancelling: false });
    setNow(startedAt);
    setRun(name, () => undefined);
    setErrors(null);
    void h.done.then((o) => {
      const durationMs = Date.now() - startedAt;
      setRunning(null);
      if (o.ok) {
        const result = (o.result ?? {}) as JsonObject;
        const missing = { errors: [{ path: '', message: 'structuredContent is missing, though the tool declares an outputSchema' }] };
        const check = !toolAtCall.outputSchema || result.isError === true || result.structuredContent !== undefined ? null : missing;
        setRun(name, () => ({ outcome: { kind: 'result', result, historyId: o.historyId, durationMs }, outputCheck: check }));
        if (toolAtCall.outputSchema && result.structuredContent !== undefined) {
          const checked = o.historyId === undefined ? Promise.resolve({ errors: [], unusable: 'the call has no history entry to check' }) : p.onCheckOutput(o.historyId, toolAtCall.outputSchema as Json);
          void checked.then((c) =>
            setRun(name, (r) => (r && r.outcome.kind === 'result' && r.outcome.result === result ? { ...r, outputCheck: c } : r)),
          );
        }
      } else if (o.error.code === 'cancelled') {
        setRun(name, () => ({ outcome: { kind: 'cancelled', durationMs }, outputCheck: null }));
      } else {
        setRun(name, () => ({ outcome: { kind: 'error', error: o.error, durationMs }, outputCheck: null }));
      }
    });
  };

  const cancel = () => {
    if (!running) return;
    setRunning({ ...running, cancelling: true });
    // A call waiting on its questions has nothing on the wire to cancel: once the cancel is
    // registered, dismiss them too (elicitation `cancel`, a decline for the other kinds), so the
    // server's open requests are answered and a modern round's retry is never sent.
    const asked = p.pendingOf[running.requestId] ?? [];
    void p.onCancel(running.requestId).then(() => {
      for (const i of asked) void p.onAnswer(i.id, { action: 'cancel' });
    });
  };

  const progress = running ? p.progress[running.requestId] : undefined;
  const pending = running ? p.pendingOf[running.requestId] ?? [] : [];
  // What the server asked during the shown call (not any call of the server's).
  const shownCall = outcome ? historyIdOf(outcome) : undefined;
  const answered = shownCall === undefined ? [] : p.serverRequests.filter((r) => r.historyId === shownCall).slice(-3);

  const list = (
    <Stack gap="xs" h="100%" p="xs" data-testid="tool-list-pane">
      <Group justify="space-between" wrap="nowrap">
        <Title order={5} data-testid="tools-count" data-count={tools.length}>
          Tools ({tools.length})
        </Title>
        <Button size="compact-xs" variant="default" onClick={p.onRefresh} data-testid="refresh-tools">
          Refresh
        </Button>
      </Group>
      <QualityTotal lint={p.lint} />
      {p.listChanged && (
        <Group gap="xs" data-testid="list-changed">
          <Badge color="yellow" variant="dot">
            List updated
          </Badge>
          <Button size="compact-xs" onClick={p.onRefresh}>
            Refresh Now
          </Button>
        </Group>
      )}
      <Tabs value={leftTab} onChange={(t) => setLeftTab(t ?? 'tools')} className="mcpscope-grow mcpscope-col">
        <Stack gap="xs" className="mcpscope-grow mcpscope-col">
          <Tabs.List>
            <Tabs.Tab value="tools">List</Tabs.Tab>
            <Tabs.Tab value="saved" data-testid="saved-tab">
              Saved
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="tools" className="mcpscope-grow mcpscope-col">
            <Stack gap="xs" className="mcpscope-grow mcpscope-col">
              <TextInput size="xs" placeholder="Search..." value={search} onChange={(e) => setSearch(e.currentTarget.value)} data-testid="tool-search" />
              {p.tools === null ? (
                <Loader size="sm" data-testid="tools-loading" />
              ) : filtered.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No tools{search ? ' match' : ''}.
                </Text>
              ) : (
                <div className="mcpscope-grow mcpscope-scroll-host">
                  <VirtualList
                    testId="tool-list"
                    count={filtered.length}
                    estimate={44}
                    rowKey={(i) => `${i}:${filtered[i].name}`}
                    row={(i) => {
                      const t = filtered[i];
                      const ex = p.excluded[t.name];
                      const sel = t.name === selected;
                      const onlyApp = !modelMayCall(toolVisibility(t._meta));
                      return (
                        <Group gap={4} wrap="nowrap" pr="xs" className={sel ? 'mcpscope-row-selected' : undefined} data-testid="tool-row" data-tool={t.name}>
                          <UnstyledButton
                            className="mcpscope-grow"
                            miw={0}
                            px="xs"
                            py={4}
                            onClick={() => {
                              setSelected(t.name);
                              setErrors(null);
                            }}
                            data-testid="tool-item"
                            data-tool={t.name}
                            data-selected={sel ? 'true' : 'false'}
                            data-excluded={ex ? 'true' : 'false'}
                            data-app-only={onlyApp ? 'true' : 'false'}
                            style={onlyApp ? { opacity: 0.55 } : undefined}
                          >
                            <Tooltip label={ex ? `Excluded: ${ex}` : t.description ?? t.name} disabled={!ex && !t.description}>
                              <Text size="sm" fw={sel ? 600 : 400} td={ex ? 'line-through' : undefined} c={ex ? 'dimmed' : undefined} truncate>
                                {t.name}
                              </Text>
                            </Tooltip>
                            <AnnotationBadges badges={onlyApp ? [{ label: 'app-only', color: 'gray', hint: 'only its MCP App may call it' }, ...toolBadges(t)] : toolBadges(t)} />
                          </UnstyledButton>
                          <QualityBadge tool={t.name} findings={findingsOf.get(t) ?? []} />
                        </Group>
                      );
                    }}
                  />
                </div>
              )}
            </Stack>
          </Tabs.Panel>
          <Tabs.Panel value="saved">
            <Stack gap={4} data-testid="saved-list">
              {saved === null ? (
                <Loader size="xs" />
              ) : saved.length === 0 ? (
                <Text size="xs" c="dimmed">
                  No saved requests. Fill a form and press Save.
                </Text>
              ) : (
                saved.map((s) => {
                  const sp = (s.params ?? {}) as JsonObject;
                  return (
                    <Group key={String(s.id)} gap="xs" wrap="nowrap" data-testid="saved-item" data-name={s.name}>
                      <UnstyledButton
                        className="mcpscope-grow"
                        onClick={() => {
                          const name = String(sp.name ?? '');
                          setSelected(name);
                          setValues((v) => ({ ...v, [name]: sp.arguments ?? {} }));
                          setLeftTab('tools');
                        }}
                      >
                        <Text size="sm">{s.name}</Text>
                        <Text size="xs" c="dimmed">
                          {String(sp.name ?? '')}
                        </Text>
                      </UnstyledButton>
                      <ActionIcon
                        size="sm"
                        variant="subtle"
                        color="red"
                        aria-label="Delete saved request"
                        onClick={() => void p.onDeleteSaved(s.id).then(() => setSaved((old) => (old ?? []).filter((x) => x.id !== s.id)))}
                      >
                        ✕
                      </ActionIcon>
                    </Group>
                  );
                })
              )}
            </Stack>
          </Tabs.Panel>
        </Stack>
      </Tabs>
    </Stack>
  );

  const params = !tool ? (
    <EmptyState title="Select a tool" description="Pick a tool on the left to fill its arguments and run it." data-testid="no-tool-selected" />
  ) : (
    <ScrollArea h="100%" type="auto">
      <Stack gap="sm" p="sm" data-testid="tool-detail" data-tool={tool.name}>
        <Group justify="space-between" wrap="nowrap">
          <Title order={5}>Tool: {tool.title ?? tool.name}</Title>
          {running && (
            <Badge color="blue" variant="dot" tt="none" data-testid="executing" data-tool={running.tool}>
              {runningHere ? 'Executing...' : `Executing ${running.tool}...`}
            </Badge>
          )}
        </Group>
        {tool.title && (
          <Text size="xs" c="dimmed" ff="monospace">
            {tool.name}
          </Text>
        )}
        {tool.description && <Text size="sm">{tool.description}</Text>}
        {excludedReason && (
          <Alert color="orange" p="xs" title="Excluded from calls" data-testid="excluded-reason">
            {excludedReason}
          </Alert>
        )}
        {appOnly && (
          <Alert color="gray" p="xs" title="app-only" data-testid="app-only">
            Its visibility is {JSON.stringify(toolVisibility(tool._meta))}: only its MCP App may call it (open it from Apps). The model, and this tab, may not.
          </Alert>
        )}
        {tool.annotations && Object.keys(tool.annotations).length > 0 && (
          <Table fz="xs" verticalSpacing={1} withRowBorders={false} data-testid="annotations">
            <Table.Tbody>
              {annotationRows(tool).map(([k, v]) => (
                <Table.Tr key={k}>
                  <Table.Td c="dimmed" w={140}>
                    {k}
                  </Table.Td>
                  <Table.Td>{v}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        <Group justify="space-between">
          <Text size="sm" fw={600}>
            Parameters
          </Text>
          <SegmentedControl
            size="xs"
            value={mode}
            onChange={(m) => setMode(m as 'form' | 'json')}
            data={[
              { value: 'form', label: 'Form' },
              { value: 'json', label: 'JSON' },
            ]}
            data-testid="form-mode"
          />
        </Group>
        {model === undefined ? (
          <Loader size="sm" data-testid="schema-form-loading" />
        ) : 'error' in model ? (
          <Alert color="red" p="xs">
            The form could not be built: {model.error}
          </Alert>
        ) : mode === 'form' && formDrawable(model) ? (
          <SchemaForm field={model} value={value} onChange={setValue} errors={errors ?? []} />
        ) : (
          <>
            {mode === 'form' && <Text size="xs" c="dimmed">This schema is edited as JSON{model.kind.type === 'json' ? `: ${model.kind.reason}` : ''}.</Text>}
            <JsonEditor value={value} onChange={setValue} testId="arguments-json" minRows={6} />
            {errors && errors.length > 0 && (
              <Alert color="red" p="xs">
                {errors.map((e, i) => (
                  <Text size="xs" key={i}>
                    {e.path || '(root)'}: {e.message}
                  </Text>
                ))}
              </Alert>
            )}
          </>
        )}
        <UnstyledButton onClick={() => setMetaOpen((o) => !o)} data-testid="meta-toggle">
          <Text size="xs" fw={600}>
            {metaOpen ? '▾' : '▸'} _meta {meta.value ? `(${Object.keys(meta.value).length} keys)` : ''}
          </Text>
        </UnstyledButton>
        <Collapse expanded={metaOpen}>
          <JsonEditor
            value={meta.value}
            onChange={(v) => setMetaText(v === undefined ? '' : JSON.stringify(v, null, 2))}
            description="Sent as params._meta (the backend adds the protocol's own keys)."
            placeholder='{"my.app/trace": "abc"}'
            error={meta.error}
            testId="meta-editor"
            minRows={2}
          />
        </Collapse>
        {errors !== null && (
          <Badge color={errors.length === 0 ? 'green' : 'red'} data-testid="validation-result" data-valid={errors.length === 0 ? 'true' : 'false'}>
            {errors.length === 0 ? '✓ Arguments are valid' : `${errors.length} validation error${errors.length > 1 ? 's' : ''}`}
          </Badge>
        )}
        {running && <ProgressPanel progress={progress} elapsedMs={now - running.startedAt} onCancel={cancel} cancelling={running.cancelling} asked={pending.length} />}
        <div data-testid="request-queue-slot" data-count={pending.length}>
          {pending.length > 0 && <PendingRequests items={pending} serverInfos={p.serverInfos} onAnswer={p.onAnswer} onFormModel={p.onFormModel} />}
          {pending.length === 0 && answered.length > 0 && (
            <Alert color="gray" p="xs" title="The server's requests during this call" data-testid="answered-requests">
              {answered.map((r, i) => (
                <Text size="xs" key={i}>
                  {r.method}: {answerText(r.answer)}
                </Text>
              ))}
            </Alert>
          )}
        </div>
        <Group gap="xs">
          <Button variant="default" onClick={validate} disabled={!!running} data-testid="validate">
            Validate only
          </Button>
          <Button onClick={execute} loading={runningHere} disabled={!!running || !!excludedReason || !!meta.error || appOnly} data-testid="execute">
            Execute Tool
          </Button>
          <RunAsTask value={asTask} onChange={setAsTask} support={taskSupport(tool)} />
          <Popover opened={saveOpen} onChange={setSaveOpen} withinPortal position="top">
            <Popover.Target>
              <Button variant="subtle" onClick={() => setSaveOpen((o) => !o)} data-testid="save-request">
                Save
              </Button>
            </Popover.Target>
            <Popover.Dropdown>
              <Group gap="xs">
                <TextInput size="xs" placeholder="Name" value={saveName} onChange={(e) => setSaveName(e.currentTarget.value)} data-testid="save-name" />
                <Button
                  size="xs"
                  disabled={!saveName.trim()}
                  data-testid="save-confirm"
                  onClick={() => {
                    void p.onSave(saveName.trim(), { name: tool.name, arguments: (value ?? {}) as Json }).then(() => {
                      setSaveOpen(false);
                      setSaveName('');
                      setSaved(null);
                    });
                  }}
                >
                  Save
                </Button>
              </Group>
            </Popover.Dropdown>
          </Popover>
        </Group>
      </Stack>
    </ScrollArea>
  );

  const results = (
    <ScrollArea h="100%" type="auto">
      <Stack gap="xs" p="sm">
        <Title order={5}>Results</Title>
        {selected && (outcome || runningHere) && (
          <Text size="xs" c="dimmed" data-testid="result-of" data-tool={selected} data-history-id={outcome ? historyIdOf(outcome) ?? '' : ''}>
            {runningHere ? 'Running' : 'Last call of'} <b>{selected}</b>
            {outcome && historyIdOf(outcome) !== undefined ? ` · History #${historyIdOf(outcome)}` : ''}
          </Text>
        )}
        {outcome?.kind === 'result' && <TaskCreated result={outcome.result} />}
        {outcome?.kind === 'error' && <RoundsNotice error={outcome.error} completed={p.completedElicitations} onRetry={execute} running={!!running} />}
        {outcome ? (
          <ToolResult
            outcome={outcome}
            outputCheck={run?.outputCheck ?? null}
            onOpenResource={p.onOpenResource}
            onShowInHistory={p.onShowInHistory}
            onClear={() => selected && setRun(selected, () => undefined)}
          />
        ) : (
          <Text size="sm" c="dimmed" data-testid="tool-result-empty">
            {runningHere ? (pending.length > 0 ? 'Waiting for the result: the server waits for your answer first.' : 'Waiting for the result…') : 'Run a tool to see its result here.'}
          </Text>
        )}
      </Stack>
    </ScrollArea>
  );

  return (
    <Splitter className="mcpscope-fill" data-testid="screen-tools">
      <Splitter.Pane defaultSize={24} min={12}>
        {list}
      </Splitter.Pane>
      <Splitter.Pane defaultSize={40} min={20}>
        {params}
      </Splitter.Pane>
      <Splitter.Pane defaultSize={36} min={15}>
        {results}
      </Splitter.Pane>
    </Splitter>
  );
}
