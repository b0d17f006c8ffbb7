import { Badge, Collapse, Group, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { answerDetail, answerStatus, collapsedSummary, exchangeFailed, headersSectionVisible, verdictDisplay } from '../../../utils/headers';
import type { HeaderVerdicts } from '../../../utils/types';

export interface HeadersSectionProps {
  headers: HeaderVerdicts | null;
}

/**
 * The collapsed HTTP headers section under an outgoing frame (000_*): the collapsed row names the
 * first disagreement; expanded, it shows request headers, response status, mirrored Mcp-* headers
 * and the Mcp-Param-* verdicts. Absent without a matched exchange; hidden without Mcp-* headers.
 */
export function HeadersSection({ headers }: HeadersSectionProps) {
  const [open, setOpen] = useState(false);
  if (!headersSectionVisible(headers)) return null;
  const s = collapsedSummary(headers);
  const red = exchangeFailed(headers);
  return (
    <Stack gap={4} data-testid="http-headers" data-tone={s.tone} data-failed={red ? 'true' : 'false'} data-open={open ? 'true' : 'false'}>
      <UnstyledButton onClick={() => setOpen((o) => !o)} data-testid="http-headers-toggle">
        <Group gap="xs" className={red ? 'mcpscope-row-red' : undefined} px={4}>
          <Text size="xs" fw={600}>
            {open ? '▾' : '▸'} HTTP headers
          </Text>
          <Text size="xs" c={s.tone === 'bad' ? 'red' : s.tone === 'warn' ? 'yellow.8' : 'green'} data-testid="http-headers-summary">
            {s.text}
          </Text>
        </Group>
      </UnstyledButton>
      <Collapse expanded={open}>
        <Stack gap="xs" pl="md">
          <Text size="xs" fw={600}>
            Request headers
          </Text>
          <Table fz="xs" verticalSpacing={1} withRowBorders={false}>
            <Table.Tbody>
              {headers.request.map(([k, v], i) => (
                <Table.Tr key={i}>
                  <Table.Td ff="monospace" w={220}>{k}</Table.Td>
                  <Table.Td ff="monospace">{v}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Group gap="xs">
            <Text size="xs" fw={600}>
              Response status
            </Text>
            <Badge color={red ? 'red' : 'green'} data-testid="http-status">
              {answerStatus(headers)}
            </Badge>
          </Group>
          {red && answerDetail(headers) && (
            <Text size="xs" ff="monospace" className="mcpscope-pre" data-testid="http-answer-detail">
              {answerDetail(headers)}
            </Text>
          )}
          {headers.mirrored.length > 0 && (
            <>
              <Text size="xs" fw={600}>
                Mcp-* headers mirrored back
              </Text>
              <Table fz="xs" verticalSpacing={1} withRowBorders={false}>
                <Table.Tbody>
                  {headers.mirrored.map(([k, v], i) => (
                    <Table.Tr key={i}>
                      <Table.Td ff="monospace" w={220}>{k}</Table.Td>
                      <Table.Td ff="monospace">{v}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </>
          )}
          {headers.rows.length > 0 && (
            <Table fz="xs" verticalSpacing={2} data-testid="header-verdicts">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Header</Table.Th>
                  <Table.Th>Body says</Table.Th>
                  <Table.Th>Sent</Table.Th>
                  <Table.Th>Verdict</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {headers.rows.map((r, i) => {
                  const d = verdictDisplay(r);
                  return (
                    <Table.Tr key={i} data-testid="header-verdict" data-header={r.header} data-verdict={r.verdict}>
                      <Table.Td ff="monospace">{r.header}</Table.Td>
                      <Table.Td ff="monospace">{r.expected ?? '—'}</Table.Td>
                      <Table.Td ff="monospace">{r.sent ?? '—'}</Table.Td>
                      <Table.Td>
                        <Text size="xs" c={d.color === 'yellow' ? 'yellow.8' : d.color}>
                          {d.symbol} {d.label}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      </Collapse>
    </Stack>
  );
}
