// The gateway inspector page: the bar (gateway, protocol, connection, statistics), what went
// wrong, then Tools and Prompts. The only component that uses useGateway; the rest take props.
import { Alert, Container, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { GatewayBar } from './components/GatewayBar';
import { ProblemAlert } from './components/ProblemAlert';
import { PromptsPanel } from './components/PromptsPanel';
import { TokenDialog } from './components/TokenDialog';
import { ToolsPanel } from './components/ToolsPanel';
import { useGateway } from './useGateway';

export function GatewayPage() {
  const g = useGateway();
  return (
    <Container fluid p="md" data-testid="gateway-page" data-status={g.status}>
      <Stack gap="md">
        <Group gap="xs" align="baseline">
          <Title order={3}>mcpscope</Title>
          <Text c="dimmed">gateway inspector</Text>
          {g.user && (
            <Text size="xs" c="dimmed" ml="auto" data-testid="user">
              signed in as {g.user}
            </Text>
          )}
        </Group>
        {g.listError && (
          <Alert color="red" title="Could not list the gateways" data-testid="gateways-error">
            {g.listError}
          </Alert>
        )}
        {g.gateways?.length === 0 && (
          <Alert color="yellow" data-testid="no-gateways">
            No gateway is configured for you.
          </Alert>
        )}
        <GatewayBar g={g} />
        {g.info?.description && (
          <Text size="sm" c="dimmed" data-testid="gateway-description">
            {g.info.description}
          </Text>
        )}
        <ProblemAlert problem={g.problem} status={g.status} />
        <Tabs defaultValue="tools" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="tools" data-testid="tab-tools">
              Tools
            </Tabs.Tab>
            <Tabs.Tab value="prompts" data-testid="tab-prompts">
              Prompts
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="tools" pt="md">
            <ToolsPanel g={g} />
          </Tabs.Panel>
          <Tabs.Panel value="prompts" pt="md">
            <PromptsPanel g={g} />
          </Tabs.Panel>
        </Tabs>
      </Stack>
      <TokenDialog opened={g.tokenDialog} gateway={g.gateway} refused={g.hasToken} onSubmit={g.submitToken} onDismiss={g.dismissToken} />
    </Container>
  );
}
