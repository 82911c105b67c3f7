"use client";

import type { Unsubscribable } from "@trpc/server/observable";
import { useEffect, useReducer, useRef } from "react";
import { type LiveState, nextLiveState, retriesAfter, retryDelayMs } from "@/lib/live/state";
import { errorFacts } from "@/lib/trpc";

/** The callbacks of a subscription that tell how it is held; the caller adds its own `onData`. */
export interface Lifecycle {
  onStarted(): void;
  onConnectionStateChange(state: { state: string; error: unknown }): void;
  onError(error: unknown): void;
  onStopped(): void;
}

/**
 * Holds a subscription while `key` is set and says how it is held. An EventSource comes back
 * by itself after a dropped connection, but not after an answer that is not a stream (the
 * console's 502 while oah-api is away): then a new subscription is opened, later and later.
 * `open` is called for each, so that it can start from what the page already has. A stream the
 * API ends (a run that finished) leaves the page on its periodic refresh; a new key opens another.
 */
export function useLiveStream(key: string | null, open: (lifecycle: Lifecycle) => Unsubscribable): LiveState {
  const [state, dispatch] = useReducer(nextLiveState, "idle");
  const openRef = useRef(open);
  openRef.current = open;

  useEffect(() => {
    if (key === null) return;
    let subscription: Unsubscribable | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    const connect = () => {
      dispatch("open");
      subscription = openRef.current({
        onStarted: () => {
          attempt = 0;
          dispatch("started");
        },
        onConnectionStateChange: ({ state: connection, error }) => {
          if (connection === "connecting" && error) dispatch("lost");
        },
        onError: (error) => {
          if (!retriesAfter(errorFacts(error).httpStatus)) {
            dispatch("stopped");
            return;
          }
          dispatch("lost");
          subscription?.unsubscribe();
          retry = setTimeout(connect, retryDelayMs(attempt++));
        },
        onStopped: () => dispatch("stopped"),
      });
    };
    connect();
    return () => {
      clearTimeout(retry);
      subscription?.unsubscribe();
      dispatch("stopped");
    };
  }, [key]);

  return key === null ? "idle" : state;
}
