import { Anchor, Stack, Text } from '@mantine/core';
import { api } from '../../../lib/api';

/** 003's "View Troubleshooting Guide →": the page of an error code, served by the backend
 *  from the binary (`/troubleshooting/<code>`), so it opens offline, in a tab of its own. */
export function TroubleshootingLink({ code }: { code: string }) {
  return (
    <Anchor href={api.troubleshootingUrl(code)} target="_blank" rel="noopener" size="xs" data-testid="troubleshooting-link" data-code={code}>
      View Troubleshooting Guide →
    </Anchor>
  );
}

/** An error toast's text, with the guide of its code under it. */
export function ErrorToastBody({ message, code }: { message: string; code: string }) {
  return (
    <Stack gap={2}>
      <Text size="sm">{message}</Text>
      <TroubleshootingLink code={code} />
    </Stack>
  );
}
