/**
 * What a page's stream is doing, as its badge shows it: `connecting` before it was ever held,
 * `live` while it is, `reconnecting` once it was lost (until it is held again), `idle` when it
 * ended or is not wanted. Every state but `live` leaves the page on its periodic refresh.
 */
export type LiveState = "idle" | "connecting" | "live" | "reconnecting";

export type LiveSignal = "open" | "started" | "lost" | "stopped";

export function nextLiveState(state: LiveState, signal: LiveSignal): LiveState {
  switch (signal) {
    case "open":
      // A retry opens a new subscription: it is still reconnecting until that one is held.
      return state === "idle" ? "connecting" : state;
    case "started":
      return "live";
    case "lost":
      return "reconnecting";
    case "stopped":
      return "idle";
  }
}

/**
 * A query's periodic refresh (`refetchInterval`): every `ms` while the stream does not carry the
 * changes, and while its last refetch failed, which the next change might be long in retrying.
 */
export function refreshEvery(
  state: LiveState,
  ms: number,
): (query: { state: { status: string } }) => number | false {
  return (query) => (state !== "live" || query.state.status === "error" ? ms : false);
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

/** How long to wait before the `attempt`-th new subscription (0 first) after one failed: doubling, capped. */
export const retryDelayMs = (attempt: number): number =>
  Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempt), MAX_RETRY_MS);

/**
 * Whether a subscription that failed is worth opening again: not when the API refused it for
 * good (a 4xx such as an unknown run), yes for everything else (the console or oah-api away,
 * which an EventSource reports without any status).
 */
export function retriesAfter(httpStatus: number | null): boolean {
  return httpStatus === null || httpStatus >= 500 || httpStatus === 408 || httpStatus === 429;
}
