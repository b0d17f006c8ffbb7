import { Alert, Badge, Button, Divider, EmptyState, Group, Loader, ScrollArea, Splitter, Stack, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { resourceAnnotations } from '../../../utils/content';
import { clockUs, duration } from '../../../utils/format';
import { promptArgumentsSchema } from '../../../utils/form';
import { expandTemplate, templateComplete, templateVariables } from '../../../utils/uriTemplate';
import type { CallOutcome, FormField, Json, JsonObject, Prefill } from '../../../utils/types';
import { CopyValue } from '../../elements/CopyValue/CopyValue';
import { JsonView } from '../../elements/JsonView/JsonView';
import { ResourceContent } from '../../groups/ResourceContent/ResourceContent';
import { SchemaForm } from '../../groups/SchemaForm/SchemaForm';

export interface ResourcesScreenProps {
  resources: JsonObject[] | null;
  /** The server advertises the resources capability. */
  offered: boolean;
  hasMore: boolean;
  templates: JsonObject[] | null;
  listChanged: boolean;
  updated: Record<string, number>;
  prefill: Prefill | null;
  onRefresh: () => void;
  onMore: () => void;
  onRead: (uri: string) => Promise<CallOutcome>;
  /** The questions the running resources/read caused (the inline client request queue). */
  pending?: ReactNode;
  /** The Subscriptions panel, shown at the bottom. */
  subscriptions?: ReactNode;
  /** The URIs subscribed (legacy) or watched (modern), as the core's Subscriptions panel has
   *  them: the one place a subscription's state lives. */
  subscribed: string[];
  /** Subscribe or unsubscribe: `resources/subscribe` on 2025-11-25, the watch filter of
   *  `subscriptions/listen` on 2026-07-28. */
  onSubscribe: (uri: string, on: boolean) => Promise<CallOutcome>;
  /** The server declares `resources.subscribe`: else no Subscribe is offered (it would be
   *  refused); a URI already subscribed can still be unsubscribed. */
  canSubscribe: boolean;
  onFormModel: (schema: Json) => Promise<FormField>;
  onComplete: (ref: JsonObject, argument: string, value: string, context: Record<string, string>) => Promise<string[]>;
}

type Read = { uri: string; at: number; durationMs: number; outcome: CallOutcome };

/** Resources: paginated list with annotations, templates (RFC 6570 + completion), content viewer. */
export function ResourcesScreen(p: ResourcesScreenProps) {
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const [template, setTemplate] = useState<string | null>(null);
  const [templateModel, setTemplateModel] = useState<FormField | null>(null);
  const [vars, setVars] = useState<Record<string, Json | undefined>>({});
  const [read, setRead] = useState<Read | null>(null);
  const [busy, setBusy] = useState(false);
  const subs = useMemo(() => Object.fromEntries(p.subscribed.map((u) => [u, true])) as Record<string, boolean>, [p.subscribed]);
  const [subError, setSubError] = useState<string | null>(null);
  const [prefillSeen, setPrefillSeen] = useState<number | null>(null);

  const resources = p.resources ?? [];
  const filtered = useMemo(() => {
    const q = search.trim().toLowerCase();
    return q ? resources.filter((r) => `${r.name ?? ''} ${r.uri ?? ''} ${r.title ?? ''}`.toLowerCase().includes(q)) : resources;
  }, [resources, search]);
  const tpl = (p.templates ?? []).find((t) => t.uriTemplate === template) ?? null;
  const tplVars = tpl ? templateVariables(String(tpl.uriTemplate)) : [];
  const varStrings: Record<string, string> = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, v === undefined ? '' : String(v)]));
  const expanded = tpl ? expandTemplate(String(tpl.uriTemplate), varStrings) : '';

  const doRead = async (uri: string) => {
    setBusy(true);
    const start = Date.now();
    const outcome = await p.onRead(uri);
    setRead({ uri, at: Date.now(), durationMs: Date.now() - start, outcome });
    setBusy(false);
  };

  if (p.prefill && p.prefill.nonce !== prefillSeen) {
    setPrefillSeen(p.prefill.nonce);
    if (p.prefill.uri) {
      setSelected(p.prefill.uri);
      setTemplate(null);
      void doRead(p.prefill.uri);
    }
  }

  useEffect(() => {
    if (!tpl) return;
    let live = true;
    p.onFormModel(promptArgumentsSchema(tplVars.map((name) => ({ name, required: true })))).then((m) => live && setTemplateModel(m));
    return () => {
      live = false;
    };
  }, [template]);

  const selectedResource = resources.find((r) => r.uri === selected);
  const ann = selectedResource ? resourceAnnotations(selectedResource as { annotations?: JsonObject }) : null;
  const contents = read?.outcome.ok ? ((((read.outcome.result ?? {}) as JsonObject).contents ?? []) as JsonObject[]) : [];
  const lastUpdate = read ? p.updated[read.uri] : undefined;

  const left = (
    <ScrollArea h="100%" type="auto">
      <Stack gap="xs" p="xs">
        <Group justify="space-between">
          <Title order={5} data-testid="resources-count" data-count={resources.length}>
            Resources ({resources.length}
            {p.hasMore ? '+' : ''})
          </Title>
          <Button size="compact-xs" variant="default" onClick={p.onRefresh} data-testid="refresh-resources">
            Refresh
          </Button>
        </Group>
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
        {!p.offered && (
          <Text size="sm" c="dimmed" data-testid="not-offered">
            This server does not advertise resources.
          </Text>
        )}
        <TextInput size="xs" placeholder="Search..." value={search} onChange={(e) => setSearch(e.currentTarget.value)} />
        {p.resources === null ? (
          <Loader size="sm" />
        ) : (
          filtered.map((r) => {
            const a = resourceAnnotations(r as { annotations?: JsonObject });
            const uri = String(r.uri);
            return (
              <UnstyledButton
                key={uri}
                px="xs"
                py={2}
                className={selected === uri && !template ? 'mcpscope-row-selected' : undefined}
                data-testid="resource-item"
                data-uri={uri}
                onClick={() => {
                  setSelected(uri);
                  setTemplate(null);
                  void doRead(uri);
                }}
              >
                <Text size="sm">{String(r.title ?? r.name ?? uri)}</Text>
                <Group gap={4}>
                  {a.audience.map((x) => (
                    <Badge key={x} color="violet">
                      {x}
                    </Badge>
                  ))}
                  {a.priority && <Badge color="orange">priority: {a.priority}</Badge>}
                  {typeof r.mimeType === 'string' && <Badge color="gray">{r.mimeType}</Badge>}
                </Group>
              </UnstyledButton>
            );
          })
        )}
        {p.hasMore && (
          <Button size="compact-xs" variant="light" onClick={p.onMore} data-testid="resources-more">
            Load more
          </Button>
        )}
        <Divider label={`Templates (${(p.templates ?? []).length})`} labelPosition="left" />
        {(p.templates ?? []).map((t) => (
          <UnstyledButton
            key={String(t.uriTemplate)}
            px="xs"
            py={2}
            className={template === t.uriTemplate ? 'mcpscope-row-selected' : undefined}
            data-testid="template-item"
            data-template={String(t.uriTemplate)}
            onClick={() => {
              setTemplate(String(t.uriTemplate));
              setTemplateModel(null);
              setVars({});
            }}
          >
            <Text size="sm" ff="monospace">
              {String(t.uriTemplate)}
            </Text>
            {typeof t.description === 'string' && (
              <Text size="xs" c="dimmed">
                {t.description}
              </Text>
            )}
          </UnstyledButton>
        ))}
        {Object.keys(subs).some((k) => subs[k]) && (
          <>
            <Divider label="Subscriptions" labelPosition="left" />
            {Object.entries(subs)
              .filter(([, on]) => on)
              .map(([uri]) => (
                <Text size="xs" key={uri} data-testid="subscription">
                  ● {uri} {p.updated[uri] ? `(updated ${new Date(p.updated[uri]).toLocaleTimeString()})` : '(active)'}
                </Text>
              ))}
          </>
        )}
      </Stack>
    </ScrollArea>
  );

  const right = (
    <ScrollArea h="100%" type="auto">
      <Stack gap="sm" p="sm">
        {tpl && (
          <Stack gap="xs" data-testid="template-form" data-template={String(tpl.uriTemplate)}>
            <Title order={5}>Template {String(tpl.uriTemplate)}</Title>
            {templateModel ? (
              <SchemaForm
                field={templateModel}
                value={vars as Json}
                onChange={(v) => setVars((v ?? {}) as Record<string, Json | undefined>)}
                complete={(key, value, all) =>
                  p.onComplete(
                    { type: 'ref/resource', uri: String(tpl.uriTemplate) },
                    key,
                    value,
                    Object.fromEntries(Object.entries(all).filter(([k, v]) => k !== key && typeof v === 'string' && v !== '')) as Record<string, string>,
                  )
                }
              />
            ) : (
              <Loader size="xs" />
            )}
            <Group gap="xs">
              <Text size="xs" c="dimmed">
                URI:
              </Text>
              <Text size="xs" ff="monospace" data-testid="expanded-uri">
                {expanded}
              </Text>
            </Group>
            <Group>
              <Button
                size="xs"
                disabled={!templateComplete(String(tpl.uriTemplate), varStrings)}
                onClick={() => void doRead(expanded)}
                loading={busy}
                data-testid="template-read"
              >
                Read
              </Button>
            </Group>
            <Divider />
          </Stack>
        )}
        {busy && p.pending}
        {!read && !tpl && <EmptyState title="Select a resource" description="Pick a resource or a template on the left." />}
        {read && (
          <Stack gap="xs" data-testid="resource-view" data-uri={read.uri} data-ok={read.outcome.ok ? 'true' : 'false'}>
            <Group justify="space-between">
              <Text size="sm" ff="monospace" fw={600}>
                {read.uri}
              </Text>
              <Text size="xs" c="dimmed">
                {duration(read.durationMs)}
              </Text>
            </Group>
            {ann && (ann.audience.length > 0 || ann.priority) && (
              <Text size="xs">
                Audience: {ann.audience.join(', ') || '—'} · Priority: {ann.priority ?? '—'}
              </Text>
            )}
            {read.outcome.ok ? (
              contents.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No contents.
                </Text>
              ) : (
                contents.map((c, i) => <ResourceContent key={i} item={c} />)
              )
            ) : (
              <Alert color="red" title={read.outcome.error.code} p="xs">
                {read.outcome.error.message}
                {read.outcome.error.data !== undefined && <JsonView value={read.outcome.error.data} />}
              </Alert>
            )}
            <Group gap="xs">
              {read.outcome.ok && <CopyValue value={JSON.stringify(read.outcome.result, null, 2)} label="Copy" />}
              {p.canSubscribe || subs[read.uri] ? (
                <Button
                  size="compact-xs"
                  variant="default"
                  onClick={() => {
                    setSubError(null);
                    void p.onSubscribe(read.uri, !subs[read.uri]).then((o) => !o.ok && setSubError(o.error.message));
                  }}
                  data-testid="subscribe"
                  data-subscribed={subs[read.uri] ? 'true' : 'false'}
                >
                  {subs[read.uri] ? 'Unsubscribe' : 'Subscribe'}
                </Button>
              ) : (
                <Text size="xs" c="dimmed" data-testid="no-subscribe">
                  no Subscribe: the server does not declare resources.subscribe
                </Text>
              )}
              {subError && (
                <Text size="xs" c="red" data-testid="subscribe-error">
                  {subError}
                </Text>
              )}
              {lastUpdate && (
                <Text size="xs" c="dimmed" data-testid="last-updated">
                  Last updated: {clockUs(lastUpdate * 1000)}
                </Text>
              )}
            </Group>
          </Stack>
        )}
        {p.subscriptions}
      </Stack>
    </ScrollArea>
  );

  return (
    <Splitter className="mcpscope-fill" data-testid="screen-resources">
      <Splitter.Pane defaultSize={35} min={15}>
        {left}
      </Splitter.Pane>
      <Splitter.Pane defaultSize={65} min={30}>
        {right}
      </Splitter.Pane>
    </Splitter>
  );
}
