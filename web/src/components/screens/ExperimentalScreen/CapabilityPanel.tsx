import { Alert, Button, Checkbox, Code, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { ApiError } from '../../../lib/api';
import {
  experimentalNames,
  switchOn,
  withEntry,
  withSwitch,
  type CapabilitiesView,
  type CapabilitySettings,
  type ExperimentalClient,
  type StandardCapability,
} from '../../../utils/experimental';
import type { Era, JsonObject, ServerInfo } from '../../../utils/types';
import { JsonView } from '../../elements/JsonView/JsonView';

export interface CapabilityPanelProps {
  server: string;
  info: ServerInfo | null;
  client: ExperimentalClient;
  /** "Test →" on a server capability: put its name in the tester's method. */
  onTest: (method: string) => void;
}

/**
 * The server's experimental capabilities, and what this client advertises to it: experimental
 * entries (the server's own names offered as switches, custom ones added by name), extensions, and
 * each capability of the spec switched on or off. Saved per server (the catalog entry's
 * `clientCapabilities`) and taken by the next connect — Reconnect applies them now.
 */
export function CapabilityPanel({ server, info, client, onTest }: CapabilityPanelProps) {
  const [view, setView] = useState<CapabilitiesView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const era: Era = info?.era ?? 'legacy';

  useEffect(() => {
    let live = true;
    client
      .capabilities(server)
      .then((v) => live && setView(v))
      .catch((e) => live && setError(String(e instanceof ApiError ? e.message : e)));
    return () => {
      live = false;
    };
    // The connection's Server Info changes after a reconnect: read what it declared.
  }, [client, server, info]);

  const save = async (settings: CapabilitySettings) => {
    setError(null);
    try {
      setView(await client.setCapabilities(server, settings));
      setSaved(true);
    } catch (e) {
      setError(e instanceof ApiError ? `${e.code}: ${e.message}` : String(e));
    }
  };
  const reconnect = async () => {
    setSaved(false);
    try {
      await client.reconnect(server, view?.protocolEra ?? 'auto');
      // What the new connection declared (its Server Info may reach this screen later).
      setView(await client.capabilities(server));
    } catch (e) {
      setError(e instanceof ApiError ? `${e.code}: ${e.message}` : String(e));
    }
  };

  const serverExperimental = (info?.capabilities?.experimental as JsonObject | undefined) ?? view?.serverExperimental ?? null;
  const settings = view?.settings ?? {};
  return (
    <Paper withBorder p="md" data-testid="exp-capabilities">
      <Stack gap="sm">
        <Title order={5}>Server Experimental Capabilities</Title>
        {serverExperimental && Object.keys(serverExperimental).length > 0 ? (
          Object.entries(serverExperimental).map(([name, value]) => (
            <Group key={name} gap="sm" data-testid="exp-server-capability" data-name={name}>
              <Code>{name}</Code>
              <Text size="xs" c="dimmed" ff="monospace">
                {JSON.stringify(value)}
              </Text>
              <Button size="compact-xs" variant="default" onClick={() => onTest(`${name}/`)}>
                Test →
              </Button>
            </Group>
          ))
        ) : (
          <Text size="sm" c="dimmed" data-testid="exp-server-none">
            {info || view?.current ? 'The server declares no experimental capabilities.' : 'Connect to see what the server declares.'}
          </Text>
        )}

        <Title order={5}>Client Capabilities (advertised to server)</Title>
        <Text size="xs" c="dimmed">
          Saved for {server}{view && !view.persisted ? ' for this run only (the catalog is read-only)' : ' in its catalog entry'}; the next connect
          advertises them.
        </Text>
        <EntrySwitches section="experimental" title="Experimental" names={experimentalNames(view, serverExperimental)} settings={settings} onSave={save} />
        <EntrySwitches section="extensions" title="Extensions" names={Object.keys(settings.extensions ?? {})} settings={settings} onSave={save} placeholder="com.example/feature" />
        {view && <StandardSwitches rows={view.standard} era={era} settings={settings} onSave={save} />}
        {saved && (
          <Alert color="blue" variant="light" data-testid="exp-caps-saved">
            <Group justify="space-between">
              <Text size="sm">Saved. The connection in place keeps what it declared until the next connect.</Text>
              <Button size="compact-sm" onClick={reconnect} data-testid="exp-reconnect">
                Reconnect now
              </Button>
            </Group>
          </Alert>
        )}
        {error && (
          <Alert color="red" variant="light" data-testid="exp-caps-error">
            {error}
          </Alert>
        )}
        {view && (
          <details data-testid="exp-advertised">
            <summary>
              <Text span size="xs" c="dimmed">
                What the next {era} connect advertises{view.current ? ' (and what this connection declared)' : ''}
              </Text>
            </summary>
            <JsonView value={view.advertised[era]} expandAll testId="exp-advertised-next" />
            {view.current && <JsonView value={view.current} expandAll testId="exp-advertised-current" />}
          </details>
        )}
      </Stack>
    </Paper>
  );
}

interface EntrySwitchesProps {
  section: 'experimental' | 'extensions';
  title: string;
  names: string[];
  settings: CapabilitySettings;
  onSave: (s: CapabilitySettings) => void;
  placeholder?: string;
}

/** One checkbox per name (checked: advertised as `{}` or its settings), and "Add custom…". */
function EntrySwitches({ section, title, names, settings, onSave, placeholder = 'custom_capability' }: EntrySwitchesProps) {
  const [custom, setCustom] = useState('');
  const map = settings[section] ?? {};
  return (
    <Stack gap={4} data-testid={`exp-${section}`}>
      <Text size="sm" fw={600}>
        {title}
      </Text>
      {names.map((n) => (
        <Checkbox
          key={n}
          label={<Code>{n}</Code>}
          checked={n in map}
          onChange={(e) => onSave(withEntry(settings, section, n, e.currentTarget.checked ? {} : null))}
          data-testid={`exp-${section}-switch`}
          data-name={n}
        />
      ))}
      <Group gap="xs">
        <TextInput
          size="xs"
          placeholder={placeholder}
          value={custom}
          onChange={(e) => setCustom(e.currentTarget.value)}
          aria-label={`Add custom ${section === 'experimental' ? 'capability' : 'extension'}`}
          data-testid={`exp-${section}-custom`}
        />
        <Button
          size="compact-xs"
          variant="default"
          disabled={!custom.trim()}
          onClick={() => {
            onSave(withEntry(settings, section, custom.trim(), {}));
            setCustom('');
          }}
          data-testid={`exp-${section}-add`}
        >
          Add custom {section === 'experimental' ? 'capability' : 'extension'}…
        </Button>
      </Group>
    </Stack>
  );
}

/** The capabilities of the spec, switched for the era in force (others shown disabled). */
function StandardSwitches({ rows, era, settings, onSave }: { rows: StandardCapability[]; era: Era; settings: CapabilitySettings; onSave: (s: CapabilitySettings) => void }) {
  return (
    <Stack gap={4} data-testid="exp-standard">
      <Text size="sm" fw={600}>
        Capabilities of the spec ({era})
      </Text>
      {rows.map((c) => {
        const here = c.eras.includes(era);
        return (
          <Checkbox
            key={c.path}
            disabled={!here}
            label={
              <>
                <Code>{c.path}</Code>{' '}
                <Text span size="xs" c="dimmed">
                  {c.description}
                  {!here ? ` (${c.eras.join(', ')} only)` : c.chosen === null ? '' : ' — changed'}
                </Text>
              </>
            }
            checked={here && switchOn(c, era)}
            onChange={(e) => onSave(withSwitch(settings, c, era, e.currentTarget.checked))}
            data-testid="exp-standard-switch"
            data-path={c.path}
          />
        );
      })}
    </Stack>
  );
}
