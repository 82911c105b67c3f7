/** What a host may need to hear about a run it executes, from the process the API call reached. */
export interface RunSignal {
  kind: "cancel" | "interrupt" | "tool_result";
  runId: string;
}

/**
 * Carries run signals to whichever host executes the run (in process here; Redis
 * pub/sub across hosts). Best effort: a host that misses one still finds it in
 * the store on its next heartbeat.
 */
export interface RunSignalBus {
  publish(signal: RunSignal): Promise<void>;
  subscribe(listener: (signal: RunSignal) => void): () => void;
  close(): Promise<void>;
}

export class LocalRunSignalBus implements RunSignalBus {
  private readonly listeners = new Set<(signal: RunSignal) => void>();

  async publish(signal: RunSignal): Promise<void> {
    for (const listener of this.listeners) listener(signal);
  }

  subscribe(listener: (signal: RunSignal) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
