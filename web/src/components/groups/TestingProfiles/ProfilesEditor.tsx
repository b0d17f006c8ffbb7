// The Testing Profiles editor (003: "Testing Profile selector for quick response strategy
// switching"): every profile with what it does, and a form to make one or change one — name,
// strategy (fixed text, echo, reject, delay then answer, tool use), its fields, model and stop
// reason — checked before it is sent (utils/profiles.ts; the backend checks again). Opened as a
// modal from Server Info and from a sampling card, above the pending-request modal.

import { Alert, Badge, Button, Group, Modal, NativeSelect, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import type { Profile } from '../../../generated/events';
import { api } from '../../../lib/api';
import { STOP_REASONS } from '../../../utils/sampling';
import { DEFAULT_PROFILE_MODEL, MAX_DELAY_MS, STRATEGY_KINDS, draftOf, emptyDraft, profileOf, strategySummary, type DraftErrors, type ProfileDraft, type StrategyKind } from '../../../utils/profiles';
import { changeProfiles, useProfiles } from './useProfiles';

/** Above the pending-request modal (PendingModal's 350), which may have opened it. */
const Z = 400;

function ProfileForm({ initial, onDone }: { initial: Profile | null; onDone: () => void }) {
  const [d, setD] = useState<ProfileDraft>(() => (initial ? draftOf(initial) : emptyDraft()));
  const [errors, setErrors] = useState<DraftErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const field = (k: keyof ProfileDraft) => ({
    value: d[k],
    error: errors[k],
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => setD({ ...d, [k]: e.currentTarget.value }),
  });
  const save = async () => {
    const r = profileOf(d);
    if ('errors' in r) {
      setErrors(r.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    // The path names the profile as it was: a new name renames it (choices follow).
    const failed = await changeProfiles(() => api.putProfile(initial?.name ?? r.profile.name, r.profile));
    setBusy(false);
    if (failed) setFailure(failed);
    else onDone();
  };
  const kind = d.kind;
  return (
    <Stack gap="xs" data-testid="profile-form">
      <TextInput label="Name" {...field('name')} data-testid="profile-name" />
      <NativeSelect label="Strategy" data={STRATEGY_KINDS} {...field('kind')} onChange={(e) => setD({ ...d, kind: e.currentTarget.value as StrategyKind })} data-testid="profile-kind" />
      {(kind === 'fixed' || kind === 'delay') && <Textarea label="Response text" autosize minRows={2} maxRows={8} {...field('text')} data-testid="profile-text" />}
      {kind === 'delay' && <TextInput label="Delay (ms)" description={`Then the text above is sent; at most ${MAX_DELAY_MS} ms. The card shows meanwhile and can answer first.`} {...field('ms')} data-testid="profile-ms" />}
      {kind === 'toolUse' && (
        <>
          <TextInput label="Tool" description="One of the request's tools; blank: its first." {...field('tool')} data-testid="profile-tool" />
          <Textarea label="Input (JSON object)" autosize minRows={2} maxRows={8} ff="monospace" {...field('input')} data-testid="profile-input" />
        </>
      )}
      {kind === 'echo' && <Text size="xs" c="dimmed">Answers with the text of the request’s last user message (at most 16 KiB).</Text>}
      {kind === 'reject' && <Text size="xs" c="dimmed">The server gets the client’s rejection error.</Text>}
      {kind !== 'reject' && (
        <Group grow>
          <TextInput label="Model" placeholder={DEFAULT_PROFILE_MODEL} {...field('model')} data-testid="profile-model" />
          <TextInput label="Stop reason" placeholder={kind === 'toolUse' ? 'toolUse' : 'endTurn'} description={`e.g. ${STOP_REASONS.join(', ')}`} {...field('stopReason')} data-testid="profile-stop-reason" />
        </Group>
      )}
      {failure && (
        <Alert color="red" p="xs" data-testid="profile-error">
          {failure}
        </Alert>
      )}
      <Group justify="flex-end" gap="xs">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button onClick={() => void save()} loading={busy} data-testid="profile-save">
          Save Profile
        </Button>
      </Group>
    </Stack>
  );
}

/** Every profile, and the form for a new one or the one being edited. */
export function ProfilesEditor() {
  const { view, error } = useProfiles();
  const [editing, setEditing] = useState<Profile | 'new' | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const profiles = view?.profiles ?? [];
  const remove = async (name: string) => setFailure(await changeProfiles(() => api.deleteProfile(name)));
  return (
    <Stack gap="sm" data-testid="profiles-editor">
      <Text size="xs" c="dimmed">
        Mock answers for sampling requests, kept in {view?.file ? <code>{view.file}</code> : 'memory'}. Choose one per server in Server Info or on a sampling card.
      </Text>
      {(view?.problem || error || failure) && (
        <Alert color="red" p="xs" data-testid="profiles-problem">
          {view?.problem ?? failure ?? error}
        </Alert>
      )}
      {profiles.length === 0 && <Text size="sm">No profiles yet.</Text>}
      {profiles.map((p) => (
        <Group key={p.name} justify="space-between" wrap="nowrap" data-testid="profile-row" data-name={p.name}>
          <Stack gap={0} style={{ minWidth: 0 }}>
            <Group gap={6}>
              <Text size="sm" fw={600}>
                {p.name}
              </Text>
              <Badge size="xs" variant="light" tt="none">
                {p.strategy.kind}
              </Badge>
            </Group>
            <Text size="xs" c="dimmed" truncate>
              {strategySummary(p.strategy)} · model {p.model || DEFAULT_PROFILE_MODEL}
            </Text>
          </Stack>
          <Group gap={4} wrap="nowrap">
            <Button size="compact-xs" variant="default" onClick={() => setEditing(p)} data-testid="profile-edit">
              Edit
            </Button>
            <Button size="compact-xs" variant="light" color="red" onClick={() => void remove(p.name)} data-testid="profile-delete">
              Delete
            </Button>
          </Group>
        </Group>
      ))}
      {editing ? (
        <ProfileForm key={editing === 'new' ? '(new)' : editing.name} initial={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />
      ) : (
        <Group>
          <Button size="xs" variant="light" onClick={() => setEditing('new')} data-testid="profile-new">
            New Profile
          </Button>
        </Group>
      )}
    </Stack>
  );
}

export function ProfilesEditorModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="Testing Profiles" size="lg" zIndex={Z} data-testid="profiles-modal">
      <Stack gap="sm">
        <ProfilesEditor />
        <Group justify="flex-end">
          <Button variant="default" size="xs" onClick={onClose} data-testid="profiles-done">
            Done
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
