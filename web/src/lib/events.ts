// The one Server-Sent Events stream of the API (`GET /api/events`). EventSource reconnects by
// itself and sends `Last-Event-ID`, so the backend replays what was missed.

export type EventName =
  | 'status'
  | 'frame'
  | 'progress'
  | 'log'
  | 'notification'
  | 'serverRequest'
  | 'history'
  | 'warning'
  | 'reset'
  | 'catalog'
  | 'auth'
  | 'resync';

export const EVENT_NAMES: EventName[] = [
  'status',
  'frame',
  'progress',
  'log',
  'notification',
  'serverRequest',
  'history',
  'warning',
  'reset',
  'catalog',
  'auth',
  'resync',
];

export type StreamState = 'connecting' | 'open' | 'error';

/** Subscribe to every event; returns a function that closes the stream. */
export function openEvents(
  onEvent: (name: EventName, data: unknown) => void,
  onState: (s: StreamState) => void,
): () => void {
  const es = new EventSource('/api/events', { withCredentials: true });
  onState('connecting');
  es.onopen = () => onState('open');
  es.onerror = () => onState(es.readyState === EventSource.CLOSED ? 'error' : 'connecting');
  for (const name of EVENT_NAMES) {
    es.addEventListener(name, (ev) => {
      try {
        onEvent(name, JSON.parse((ev as MessageEvent<string>).data));
      } catch {
        /* a malformed event is ignored */
      }
    });
  }
  return () => es.close();
}
