import { Badge, Button, Group, Stack, Text, UnstyledButton } from '@mantine/core';
import { bytes, clockUs, duration, prettyJsonText } from '../../../utils/format';
import { frameIsRed } from '../../../utils/headers';
import { appOf, formPairs, frameHeader, frameSummary } from '../../../utils/traffic';
import type { FrameView } from '../../../utils/types';
import { DownloadButton } from '../../elements/DownloadButton/DownloadButton';
import { TruncatedText } from '../../elements/TruncatedText/TruncatedText';
import { HeadersSection } from '../HeadersSection/HeadersSection';

export interface FrameRowProps {
  frame: FrameView;
  expanded: boolean;
  onToggle: () => void;
  /** URL of the whole body (for truncated frames). */
  bodyUrl: string;
  /** Jump to the paired request/response. */
  onJumpToPair?: () => void;
  /** Open the history entry a frame belongs to (an app's message: the MCP request it caused). */
  onShowInHistory?: (id: number) => void;
}

const ARROW: Record<string, string> = { out: '→', in: '←', local: '•' };

/** An OAuth body: a form (token and registration requests) as decoded lines, else pretty JSON/text. */
function oauthBody(f: FrameView): string | null {
  if (f.text === null) return null;
  const form = /x-www-form-urlencoded/i.test(frameHeader(f, 'content-type') ?? '') ? formPairs(f.text) : null;
  return form ? form.map(([k, v]) => `${k} = ${v}`).join('\n') : prettyJsonText(f.text).text;
}

/** One Traffic row: time, direction, source, message type, method, id, duration, lint; expands. */
export function FrameRow({ frame: f, expanded, onToggle, bodyUrl, onJumpToPair, onShowInHistory }: FrameRowProps) {
  const red = frameIsRed(f);
  const isError = f.message === 'error' || f.message === 'invalid';
  const lintCount = f.lint?.length ?? 0;
  const sum = frameSummary(f);
  const oauth = f.kind.startsWith('oauth-');
  const app = appOf(f);
  return (
    <Stack
      gap={2}
      px="xs"
      py={3}
      className={red ? 'mcpscope-row-red' : undefined}
      data-testid="frame-row"
      data-seq={f.seq}
      data-source={f.source}
      data-kind={f.kind}
      data-direction={f.direction}
      data-message={f.message ?? ''}
      data-method={f.method ?? ''}
      data-red={red ? 'true' : 'false'}
      data-app={app?.tool}
      data-app-direction={app?.direction}
      data-history-id={f.historyId ?? undefined}
      data-expanded={expanded ? 'true' : 'false'}
    >
      <UnstyledButton onClick={onToggle}>
        <Group gap="xs" wrap="nowrap">
          <Text size="xs" c="dimmed" ff="monospace" w={92}>
            {clockUs(f.timeUs)}
          </Text>
          <Text size="xs" w={14}>
            {ARROW[f.direction]}
          </Text>
          <Badge color={f.source === 'stderr' ? 'orange' : f.source === 'http' ? 'cyan' : f.source === 'oauth' ? 'grape' : f.source === 'lifecycle' ? 'gray' : f.source === 'app' ? 'teal' : 'blue'} w={70}>
            {f.source}
          </Badge>
          {f.message && (
            <Badge color={isError ? 'red' : 'gray'} variant={isError ? 'filled' : 'light'} w={92}>
              {f.message}
            </Badge>
          )}
          <Text size="xs" ff="monospace" truncate className="mcpscope-grow" data-testid="frame-summary">
            {sum.text}
            {f.id !== null && f.id !== undefined ? <Text span c="dimmed" size="xs"> #{String(f.id)}</Text> : null}
            {sum.step && (
              <Text span c="grape" size="xs" ff="text" data-testid="frame-step">
                {'  '}· {sum.step}
              </Text>
            )}
          </Text>
          {f.durationMs !== null && f.durationMs !== undefined && (
            <Text size="xs" c="dimmed" data-testid="frame-duration">
              {duration(f.durationMs)}
            </Text>
          )}
          {f.headers?.firstDisagreement && (
            <Text size="xs" c="red" truncate maw={260} data-testid="frame-disagreement">
              {f.headers.firstDisagreement}
            </Text>
          )}
          {lintCount > 0 && (
            <Badge color="yellow" data-testid="lint-badge">
              lint {lintCount}
            </Badge>
          )}
          <Text size="xs" c="dimmed" w={64} ta="right">
            {bytes(f.size)}
          </Text>
        </Group>
      </UnstyledButton>
      {expanded && (
        <Stack gap={4} pl="md" data-testid="frame-detail">
          {app && (
            <Group gap="xs" data-testid="frame-app">
              <Text size="xs">
                App <b>{app.tool}</b> ({app.direction === 'toApp' ? 'host → app' : app.direction === 'host' ? 'a note of the backend' : 'app → host'}{app.instance ? `, open ${app.instance}` : ''})
              </Text>
              {app.note && (
                <Text size="xs" c="orange" data-testid="frame-app-note">
                  {app.note}
                </Text>
              )}
            </Group>
          )}
          {f.historyId !== undefined && f.historyId !== null && onShowInHistory && app && (
            <Group>
              <Button size="compact-xs" variant="subtle" onClick={() => onShowInHistory(f.historyId!)} data-testid="frame-history-link">
                The MCP request in History (#{f.historyId})
              </Button>
            </Group>
          )}
          {(f.kind === 'oauth-request' || f.kind === 'oauth-response') && (
            <Text size="xs" ff="monospace" className="mcpscope-pre" data-testid="frame-target">
              {f.meta.method} {f.meta.url}
              {f.meta.status !== undefined && f.meta.status !== null ? `  →  HTTP ${f.meta.status}` : ''}
              {f.meta.note ? `  (${f.meta.note})` : ''}
            </Text>
          )}
          {f.kind === 'oauth-step' ? (
            <Text size="xs" className="mcpscope-pre">
              {f.meta.note ?? f.text ?? ''}
            </Text>
          ) : oauth && f.text === '' ? (
            <Text size="xs" c="dimmed">
              (empty body)
            </Text>
          ) : oauth && f.text !== null ? (
            <TruncatedText text={oauthBody(f) ?? ''} fullUrl={f.truncated ? bodyUrl : undefined} serverTruncated={f.truncated} filename={`frame-${f.seq}.txt`} />
          ) : f.text !== null ? (
            <TruncatedText text={prettyJsonText(f.text).text} fullUrl={f.truncated ? bodyUrl : undefined} serverTruncated={f.truncated} filename={`frame-${f.seq}.txt`} />
          ) : f.base64 !== null ? (
            <Group gap="xs">
              <Text size="xs" c="dimmed">
                {bytes(f.size)} of binary data
              </Text>
              <DownloadButton filename={`frame-${f.seq}.bin`} url={bodyUrl} />
            </Group>
          ) : null}
          {f.meta.headers && f.meta.headers.length > 0 && !f.headers && (
            <Text size="xs" ff="monospace" className="mcpscope-pre">
              {f.meta.headers.map(([k, v]) => `${k}: ${v}`).join('\n')}
            </Text>
          )}
          {f.direction === 'out' && <HeadersSection headers={f.headers} />}
          {lintCount > 0 && (
            <Stack gap={0} data-testid="lint-findings">
              {f.lint!.map((l, i) => (
                <Text size="xs" c="yellow.8" key={i}>
                  ⚠ {l.path || '(root)'}: {l.message}
                </Text>
              ))}
            </Stack>
          )}
          {onJumpToPair && (
            <Group>
              <Button size="compact-xs" variant="subtle" onClick={onJumpToPair} data-testid="jump-to-pair">
                {f.message === 'request' ? 'Go to response' : 'Go to request'}
              </Button>
            </Group>
          )}
        </Stack>
      )}
    </Stack>
  );
}
