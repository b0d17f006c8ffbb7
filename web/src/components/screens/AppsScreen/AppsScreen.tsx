// Apps: the tools that are MCP Apps (from `GET /api/servers/:name/apps`), searchable like the
// Tools list, with the generated input form (SchemaForm) and Open App; the running app is an
// AppFrame (the sandbox, the bridge). Maximize hides the list. `data-app-status` on the panel.

import { Alert, Badge, Button, EmptyState, Group, Loader, ScrollArea, Stack, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { formDrawable, fieldCount, initialValue } from '../../../utils/form';
import { modelMayCall, type AppTool, type AppsList } from '../../../utils/apps';
import type { ToolDef } from '../../../utils/tools';
import type { FieldError, FormField, Json, JsonObject } from '../../../utils/types';
import { AppFrame, type AppActions } from '../../groups/AppFrame/AppFrame';
import { JsonEditor } from '../../groups/JsonEditor/JsonEditor';
import { SchemaForm } from '../../groups/SchemaForm/SchemaForm';

export interface AppsScreenProps {
  server: string;
  /** The last tools/list (the apps are re-read from the backend when it changes; icons come from it). */
  tools: ToolDef[] | null;
  listChanged: boolean;
  onRefresh: () => void;
  onFormModel: (schema: Json) => Promise<FormField>;
  onValidate: (tool: string, args: Json) => Promise<{ errors: FieldError[] }>;
  onShowInHistory: (id: number) => void;
  list: () => Promise<AppsList>;
  actions: AppActions;
  /** A deep link's app to open once (nonce changes per link). */
  open: { nonce: number; tool: string; args: JsonObject } | null;
}

/** A data: image of the tool's icons (other sources are not loaded: the UI's CSP allows only data:). */
function iconOf(tool: ToolDef | undefined): string | null {
  const icons = Array.isArray(tool?.icons) ? (tool!.icons as JsonObject[]) : [];
  const i = icons.find((x) => typeof x?.src === 'string' && /^data:image\//.test(x.src as string));
  return i ? (i.src as string) : null;
}

function filterApps(apps: AppTool[], q: string): AppTool[] {
  const s = q.trim().toLowerCase();
  if (!s) return apps;
  return apps.filter((a) => a.tool.toLowerCase().includes(s) || (a.title ?? '').toLowerCase().includes(s) || (a.description ?? '').toLowerCase().includes(s));
}

export function AppsScreen(p: AppsScreenProps) {
  const [apps, setApps] = useState<AppsList | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const [models, setModels] = useState<Record<string, FormField | { error: string }>>({});
  const [values, setValues] = useState<Record<string, Json | undefined>>({});
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [running, setRunning] = useState<{ key: number; tool: string; args: JsonObject } | null>(null);
  const [maximized, setMaximized] = useState(false);
  const [openSeen, setOpenSeen] = useState<number | null>(null);

  // The apps of the current tools/list.
  useEffect(() => {
    if (p.tools === null) return;
    let live = true;
    p.list()
      .then((l) => {
        if (!live) return;
        setApps(l);
        setListError(null);
      })
      .catch((e: unknown) => live && setListError(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [p.tools, p.list]);

  const all = apps?.apps ?? [];
  const shown = useMemo(() => filterApps(all, search), [all, search]);
  const app = all.find((a) => a.tool === selected) ?? null;
  const model = selected ? models[selected] : undefined;
  const value = selected ? values[selected] : undefined;
  const byName = useMemo(() => new Map((p.tools ?? []).map((t) => [t.name, t])), [p.tools]);
  const hasInputs = !!model && !('error' in model) && fieldCount(model) > 0 && formDrawable(model);

  useEffect(() => {
    if (!app || models[app.tool]) return;
    let live = true;
    p.onFormModel((app.inputSchema ?? { type: 'object' }) as Json)
      .then((m) => {
        if (!live) return;
        setModels((o) => ({ ...o, [app.tool]: m }));
        setValues((o) => (o[app.tool] === undefined ? { ...o, [app.tool]: initialValue(m) ?? {} } : o));
      })
      .catch((e: unknown) => live && setModels((o) => ({ ...o, [app.tool]: { error: e instanceof Error ? e.message : String(e) } })));
    return () => {
      live = false;
    };
  }, [app, models, p.onFormModel]);

  const launch = (tool: string, args: JsonObject) => setRunning((r) => ({ key: (r?.key ?? 0) + 1, tool, args }));

  // A tool without inputs opens at once when selected.
  const select = (tool: string) => {
    setSelected(tool);
    setErrors([]);
    setRunning(null);
  };
  useEffect(() => {
    if (app && model && !('error' in model) && fieldCount(model) === 0 && running === null) launch(app.tool, {});
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [app?.tool, model]);

  // A deep link: select the app, fill the arguments, open it (once per link).
  if (p.open && p.open.nonce !== openSeen && apps) {
    setOpenSeen(p.open.nonce);
    const target = all.find((a) => a.tool === p.open!.tool);
    if (target) {
      setSelected(target.tool);
      setValues((o) => ({ ...o, [target.tool]: p.open!.args }));
      setRunning({ key: (running?.key ?? 0) + 1, tool: target.tool, args: p.open.args });
    } else {
      setListError(`The deep link's app ${p.open.tool} is not an app tool of this server.`);
    }
  }

  const open = async () => {
    if (!app) return;
    const args = ((value ?? {}) as JsonObject) ?? {};
    try {
      const r = await p.onValidate(app.tool, args);
      setErrors(r.errors);
      if (r.errors.length > 0) return;
    } catch {
      /* the backend validates again when the tool runs */
    }
    launch(app.tool, args);
  };

  const list = (
    <Stack gap="xs" h="100%" p="xs" w={maximized ? 0 : 300} style={{ display: maximized ? 'none' : undefined, borderRight: '1px solid var(--mantine-color-default-border)' }} data-testid="app-list-pane">
      <Group justify="space-between" wrap="nowrap">
        <Title order={5} data-testid="apps-count" data-count={all.length}>
          MCP Apps ({all.length})
        </Title>
        <Button size="compact-xs" variant="default" onClick={p.onRefresh} data-testid="refresh-apps">
          Refresh Apps
        </Button>
      </Group>
      {p.listChanged && (
        <Badge color="yellow" variant="dot" data-testid="apps-list-changed">
          List updated: refresh
        </Badge>
      )}
      <TextInput size="xs" placeholder="Search apps…" value={search} onChange={(e) => setSearch(e.currentTarget.value)} data-testid="app-search" />
      {listError && (
        <Alert color="red" p={4} data-testid="apps-error">
          <Text size="xs">{listError}</Text>
        </Alert>
      )}
      <ScrollArea className="mcpscope-grow" type="auto">
        {apps === null && !listError ? (
          <Loader size="sm" />
        ) : shown.length === 0 ? (
          <Text size="sm" c="dimmed" data-testid="no-apps">
            {all.length === 0 ? 'No tool of this server has a ui:// app.' : 'No app matches.'}
          </Text>
        ) : (
          shown.map((a) => {
            const icon = iconOf(byName.get(a.tool));
            return (
              <UnstyledButton
                key={a.tool}
                w="100%"
                px="xs"
                py={4}
                className={a.tool === selected ? 'mcpscope-row-selected' : undefined}
                onClick={() => select(a.tool)}
                data-testid="app-item"
                data-app={a.tool}
                data-selected={a.tool === selected ? 'true' : 'false'}
              >
                <Group gap={6} wrap="nowrap">
                  {icon && <img src={icon} alt="" width={18} height={18} />}
                  <Text size="sm" fw={a.tool === selected ? 600 : 400} truncate>
                    {a.title ?? a.tool}
                  </Text>
                  {!modelMayCall(a.visibility) && (
                    <Badge size="xs" color="gray">
                      app-only
                    </Badge>
                  )}
                  {a.warnings.length > 0 && (
                    <Badge size="xs" color="yellow" title={a.warnings.join('\n')}>
                      {a.warnings.length} warning{a.warnings.length > 1 ? 's' : ''}
                    </Badge>
                  )}
                </Group>
                {a.description && (
                  <Text size="xs" c="dimmed" lineClamp={2}>
                    {a.description}
                  </Text>
                )}
              </UnstyledButton>
            );
          })
        )}
        {apps && apps.ignored.length > 0 && (
          <Stack gap={2} mt="sm" data-testid="apps-ignored">
            <Text size="xs" fw={600}>
              Not apps
            </Text>
            {apps.ignored.map((i) => (
              <Text size="xs" c="dimmed" key={i.tool}>
                {i.tool}: {i.reason}
              </Text>
            ))}
          </Stack>
        )}
      </ScrollArea>
    </Stack>
  );

  const idle = (body: React.ReactNode) => (
    <Stack gap="sm" p="sm" h="100%" data-testid="app-panel" data-app-status="idle">
      {body}
    </Stack>
  );

  let right: React.ReactNode;
  if (!app) {
    right = idle(<EmptyState title="Select an app" description="Pick an app on the left: fill its input and press Open App." data-testid="no-app-selected" />);
  } else if (running && running.tool === app.tool) {
    right = (
      <AppFrame
        key={running.key}
        app={app}
        args={running.args}
        actions={p.actions}
        maximized={maximized}
        hasInputs={hasInputs}
        onToggleMaximize={() => setMaximized((m) => !m)}
        onExit={(to) => {
          setRunning(null);
          setMaximized(false);
          if (to === 'close') setSelected(null);
        }}
        onShowInHistory={p.onShowInHistory}
      />
    );
  } else {
    right = idle(
      <ScrollArea h="100%" type="auto">
        <Stack gap="sm" data-testid="app-detail" data-app={app.tool}>
          <Group justify="space-between" wrap="nowrap">
            <Title order={5}>{app.title ?? app.tool}</Title>
            <Button size="compact-xs" variant="subtle" onClick={() => setSelected(null)} aria-label="Deselect" data-testid="app-deselect">
              ✕
            </Button>
          </Group>
          {app.description && <Text size="sm">{app.description}</Text>}
          <Text size="xs" c="dimmed" ff="monospace">
            {app.resourceUri} · visibility {app.visibility.join(', ')}
          </Text>
          {app.warnings.map((w, i) => (
            <Alert key={i} color="yellow" p={4}>
              <Text size="xs">{w}</Text>
            </Alert>
          ))}
          <Text size="sm" fw={600}>
            App Input
          </Text>
          {model === undefined ? (
            <Loader size="sm" />
          ) : 'error' in model ? (
            <Alert color="red" p="xs">
              The form could not be built: {model.error}
            </Alert>
          ) : formDrawable(model) ? (
            <SchemaForm field={model} value={value} onChange={(v) => setValues((o) => ({ ...o, [app.tool]: v }))} errors={errors} />
          ) : (
            <JsonEditor value={value} onChange={(v) => setValues((o) => ({ ...o, [app.tool]: v }))} testId="app-arguments-json" minRows={4} />
          )}
          {errors.length > 0 && (
            <Badge color="red" data-testid="app-validation">
              {errors.length} validation error{errors.length > 1 ? 's' : ''}
            </Badge>
          )}
          {model !== undefined && !('error' in model) && fieldCount(model) === 0 ? (
            <Text size="sm" c="dimmed">
              No inputs: the app opens at once.
            </Text>
          ) : (
            <Group>
              <Button onClick={() => void open()} disabled={model === undefined} data-testid="open-app">
                ▶ Open App
              </Button>
            </Group>
          )}
        </Stack>
      </ScrollArea>,
    );
  }

  return (
    <Group gap={0} wrap="nowrap" align="stretch" className="mcpscope-fill" data-testid="screen-apps" data-maximized={maximized ? 'true' : 'false'}>
      {list}
      <div className="mcpscope-grow mcpscope-col" style={{ height: '100%' }}>
        {right}
      </div>
    </Group>
  );
}
