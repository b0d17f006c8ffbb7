// The Testing Profiles every part of the page shows (the editor, Server Info's choice, each
// sampling card's bar), fetched once and kept in one place: a change made in one is seen by the
// others at once, without each asking the backend on its own. The backend is the truth; after
// every change the page reloads what it says.

import { useSyncExternalStore } from 'react';
import type { ActiveProfile, ProfilesView } from '../../../generated/events';
import { ApiError, api } from '../../../lib/api';

export interface ProfilesState {
  view: ProfilesView | null;
  /** Why the last load or change failed (the backend's words). */
  error: string | null;
}

let state: ProfilesState = { view: null, error: null };
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

function set(next: ProfilesState) {
  state = next;
  for (const l of listeners) l();
}

function message(e: unknown): string {
  return e instanceof ApiError ? e.message : String(e);
}

/** Load (again) what the backend keeps. */
export function reloadProfiles(): Promise<void> {
  loading = api
    .profiles()
    .then((view) => set({ view, error: null }))
    .catch((e) => set({ ...state, error: message(e) }));
  return loading;
}

/** Run a change, then reload; resolves to the error's words, or null when it worked. */
export async function changeProfiles(change: () => Promise<unknown>): Promise<string | null> {
  try {
    await change();
    await reloadProfiles();
    return null;
  } catch (e) {
    await reloadProfiles();
    return message(e);
  }
}

function subscribe(l: () => void) {
  listeners.add(l);
  if (!loading) void reloadProfiles();
  return () => listeners.delete(l);
}

/** The profiles and every server's choice (null until loaded). */
export function useProfiles(): ProfilesState {
  return useSyncExternalStore(subscribe, () => state);
}

/** `server`'s choice: all off when it has none. */
export function choiceOf(view: ProfilesView | null, server: string): ActiveProfile {
  return view?.servers[server] ?? { profile: null, autoRespond: false, withoutStopping: false };
}
