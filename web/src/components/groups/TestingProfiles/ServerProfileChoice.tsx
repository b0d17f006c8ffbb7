// One server's Testing Profile choice (Server Info, and compact on a sampling card): which
// profile, **Auto-respond** (answer with it) and **Answer without stopping** (the backend answers
// by itself, after a delay profile's delay; off: the card waits, pre-filled). Saved at once to
// `PUT /api/servers/:name/profile`; what the switches do is said in words below them.

import { Alert, Button, Group, NativeSelect, Stack, Switch, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { ActiveProfile } from '../../../generated/events';
import { api } from '../../../lib/api';
import { choiceSummary } from '../../../utils/profiles';
import { ProfilesEditorModal } from './ProfilesEditor';
import { changeProfiles, choiceOf, useProfiles } from './useProfiles';

export interface ServerProfileChoiceProps {
  server: string;
  /** Smaller, without the title (the sampling card's bar). */
  compact?: boolean;
}

export function ServerProfileChoice({ server, compact = false }: ServerProfileChoiceProps) {
  const { view } = useProfiles();
  const [editorOpen, setEditorOpen] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const choice = choiceOf(view, server);
  const names = (view?.profiles ?? []).map((p) => p.name);
  const save = async (next: ActiveProfile) => setFailure(await changeProfiles(() => api.setServerProfile(server, next)));
  const size = compact ? 'xs' : 'sm';
  return (
    <Stack gap={6} data-testid="server-profile" data-server={server} data-profile={choice.profile ?? ''}>
      {!compact && <Title order={6}>Testing Profile</Title>}
      <Group gap="sm" align="flex-end" wrap="wrap">
        <NativeSelect
          size={size}
          label={compact ? 'Testing Profile' : 'Active profile'}
          value={choice.profile ?? ''}
          data={[{ value: '', label: '(none: answer by hand)' }, ...names.map((n) => ({ value: n, label: n }))]}
          onChange={(e) => void save({ ...choice, profile: e.currentTarget.value || null })}
          data-testid="server-profile-select"
        />
        <Switch
          size={size}
          label="Auto-respond"
          checked={choice.autoRespond}
          onChange={(e) => void save({ ...choice, autoRespond: e.currentTarget.checked })}
          wrapperProps={{ 'data-testid': 'server-profile-auto', 'data-checked': String(choice.autoRespond) }}
        />
        <Switch
          size={size}
          label="Answer without stopping"
          checked={choice.withoutStopping}
          disabled={!choice.autoRespond}
          onChange={(e) => void save({ ...choice, withoutStopping: e.currentTarget.checked })}
          wrapperProps={{ 'data-testid': 'server-profile-without-stopping', 'data-checked': String(choice.withoutStopping) }}
        />
        <Button size="compact-xs" variant="subtle" onClick={() => setEditorOpen(true)} data-testid="profiles-edit">
          Edit profiles…
        </Button>
      </Group>
      <Text size="xs" c="dimmed" data-testid="server-profile-summary">
        {choiceSummary(choice)}
      </Text>
      {failure && (
        <Alert color="red" p="xs" data-testid="server-profile-error">
          {failure}
        </Alert>
      )}
      <ProfilesEditorModal opened={editorOpen} onClose={() => setEditorOpen(false)} />
    </Stack>
  );
}
