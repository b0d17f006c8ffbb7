// The one Server-Sent Events stream of the API (`GET /api/events`). EventSource reconnects by
// itself and sends `Last-Event-ID`, so the backend replays what was missed. The events and their
// bodies are the backend's typed vocabulary (src/generated/events.ts, generated from Rust).
import type { WebEvent } from '../generated/events';

export type EventName = WebEvent['event'];

/** Every event name, held by the compiler to the generated union: a new event fails here. */
const ALL: { [K in EventName]: true } = {
  status: true,
  frame: true,
  progress: true,
  log: true,
  notification: true,
  serverRequest: true,
  history: true,
  warning: true,
  reset: true,
  catalog: true,
  auth: true,
  resync: true,
  interactionOpened: true,
  interactionClosed: true,
  tasks: true,
  subscriptions: true,
};

export const EVENT_NAMES = Object.keys(ALL) as EventName[];

export type StreamState = 'connecting' | 'open' | 'error';

/** Subscribe to every event; returns a function that closes the stream. */
export function openEvents(onEvent: (e: WebEvent) => void, onState: (s: StreamState) => void): () => void {
  const es = new EventSource('/api/events', { withCredentials: true });
  onState('connecting');
  es.onopen = () => onState('open');
  es.onerror = () => onState(es.readyState === EventSource.CLOSED ? 'error' : 'connecting');
  for (const name of EVENT_NAMES) {
    es.addEventListener(name, (ev) => {
      let data: unknown;
      try {
        data = JSON.parse((ev as MessageEvent<string>).data);
      } catch {
        return; /* a malformed event is ignored */
      }
      // The name says which body it is (the backend serialises both from one Rust enum).
      onEvent({ event: name, data } as WebEvent);
    });
  }
  return () => es.close();
}
