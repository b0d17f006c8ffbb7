// Prompts (002): pick a prompt, fill its arguments, Generate prompt; the Output card shows the
// rendered messages with Copy and a size estimate. A gateway without prompts says so. The
// arguments (strings) become a schema as in the web UI (`promptArgumentsSchema`), whose form and
// check are the backend's (`forms.ts`).
import { Alert, Button, Card, Grid, Loader, Select, Stack, Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import { SchemaForm } from '../../components/groups/SchemaForm/SchemaForm';
import { promptArgumentsSchema } from '../../utils/form';
import type { FieldError, JsonObject } from '../../utils/types';
import type { Prompt } from '../client';
import { checkArguments, reasonOf, useArgumentsForm } from '../forms';
import { serverOf } from '../present';
import type { GatewayState } from '../useGateway';
import { OutputCard } from './OutputCard';

export function PromptsPanel({ g }: { g: GatewayState }) {
  const [picked, setPicked] = useState<string | null>(null);
  const p = g.prompts;
  if (p.state === 'loading') {
    return (
      <Text size="sm" c="dimmed" data-testid="prompts-panel" data-state="loading">
        {g.status === 'connected' ? 'Listing prompts…' : 'Not connected.'}
      </Text>
    );
  }
  if (p.state === 'none') {
    return (
      <Text size="sm" data-testid="prompts-panel" data-state="none">
        <span data-testid="no-prompts">This gateway does not expose prompts.</span>
      </Text>
    );
  }
  if (p.state === 'failed') {
    return (
      <Alert color="red" title="prompts/list failed" data-testid="prompts-panel" data-state="failed">
        <Text size="sm" className="mcpscope-pre">
          {p.problem.message}
        </Text>
      </Alert>
    );
  }
  const prompt = p.prompts.find((x) => x.name === picked);
  return (
    <Grid gap="md" data-testid="prompts-panel" data-state="listed" data-count={p.prompts.length}>
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Select
          label="Prompt"
          placeholder="Pick a prompt"
          data={p.prompts.map((x) => ({ value: x.name, label: serverOf(x.name, g.info?.servers) ? `${x.name} (${serverOf(x.name, g.info?.servers)})` : x.name }))}
          value={picked}
          onChange={setPicked}
          searchable
          data-testid="prompt-select"
          comboboxProps={{ withinPortal: true }}
        />
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Stack gap="md">
          {prompt ? <PromptDetail key={prompt.name} prompt={prompt} g={g} /> : <Text size="sm" c="dimmed">Pick a prompt.</Text>}
          <OutputCard output={g.promptOutput} onClear={g.clearPromptOutput} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}

function PromptDetail({ prompt, g }: { prompt: Prompt; g: GatewayState }) {
  const schema = useMemo(() => promptArgumentsSchema(prompt.arguments ?? []), [prompt.arguments]);
  const { form, problem, value, setValue } = useArgumentsForm(schema, 'empty');
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [checking, setChecking] = useState(false);
  const generate = async () => {
    const args = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as JsonObject;
    setChecking(true);
    let found: FieldError[];
    try {
      found = await checkArguments(schema, args);
      setErrors(found);
    } catch (e) {
      // Not checked here: the gateway still checks the prompt's arguments.
      found = [];
      setErrors([{ path: '', message: `not checked here: ${reasonOf(e)}` }]);
    }
    setChecking(false);
    if (found.length > 0) return;
    const strings: Record<string, string> = {};
    for (const [k, v] of Object.entries(args)) if (typeof v === 'string') strings[k] = v;
    void g.generatePrompt(prompt.name, strings);
  };
  return (
    <Card withBorder data-testid="prompt-detail" data-prompt={prompt.name}>
      <Stack gap="sm">
        <Text fw={600}>{prompt.title ?? prompt.name}</Text>
        {prompt.description && (
          <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
            {prompt.description}
          </Text>
        )}
        {problem && (
          <Alert color="yellow" p="xs" data-testid="form-problem">
            <Text size="xs">The form could not be built ({problem}); the arguments are edited as JSON.</Text>
          </Alert>
        )}
        {form ? <SchemaForm field={form} value={value} onChange={setValue} errors={errors} /> : <Loader size="sm" data-testid="form-loading" />}
        <Button onClick={() => void generate()} loading={g.running || checking} disabled={g.status !== 'connected' || !form} data-testid="generate-prompt" w="fit-content">
          Generate prompt
        </Button>
      </Stack>
    </Card>
  );
}
