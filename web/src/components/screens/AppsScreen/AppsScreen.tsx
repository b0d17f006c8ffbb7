import { Badge, EmptyState, List, Stack, Text } from '@mantine/core';
import type { ToolDef } from '../../../utils/tools';

export interface AppsScreenProps {
  /** Tools that advertise a UI resource (`_meta.ui.resourceUri`). */
  apps: ToolDef[];
}

/** Apps: MCP Apps come in a later version; this lists what the server offers meanwhile. */
export function AppsScreen({ apps }: AppsScreenProps) {
  return (
    <Stack p="xl" align="center" data-testid="screen-apps" data-state="coming-later">
      <EmptyState
        title="MCP Apps: coming in a later version"
        description="Running a tool's UI resource in a sandboxed frame arrives with the follow-up release. Meanwhile call the tool from Tools and read its ui:// resource from Resources."
      />
      <Badge color="gray">{apps.length} app tool{apps.length === 1 ? '' : 's'} on this server</Badge>
      {apps.length > 0 && (
        <List size="sm">
          {apps.map((a) => (
            <List.Item key={a.name}>
              <Text span ff="monospace" size="sm">
                {a.name}
              </Text>
            </List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}
