/** Carries cancel requests to whichever host executes the run (in process here; Redis pub/sub across hosts). */
export interface CancelBus {
  publish(runId: string): Promise<void>;
  subscribe(listener: (runId: string) => void): () => void;
  close(): Promise<void>;
}

export class LocalCancelBus implements CancelBus {
  private readonly listeners = new Set<(runId: string) => void>();

  async publish(runId: string): Promise<void> {
    for (const listener of this.listeners) listener(runId);
  }

  subscribe(listener: (runId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
