/**
 * Each worker host's proof of life, by which other hosts judge whether a stale run
 * may still be executing (docs: "Exactly one execution"): the ids of the runs the
 * host executes, renewed with every heartbeat, lapsing one session lock TTL after
 * the last renewal. A host stops every step it runs before its lease can lapse
 * (see Liveness), so a run that no live lease lists has no execution left anywhere.
 */
export interface HostLeases {
  /** Writes this host's lease for `ttlMs`: the runs it executes now. */
  renew(hostId: string, runIds: readonly string[], ttlMs: number): Promise<void>;
  /** The runs listed by each of these hosts whose lease is live; hosts without one are absent. */
  runsOf(hostIds: readonly string[]): Promise<Map<string, ReadonlySet<string>>>;
  remove(hostId: string): Promise<void>;
}

/** One process is the only host: leases live in its memory. */
export class LocalHostLeases implements HostLeases {
  private readonly leases = new Map<string, { runIds: ReadonlySet<string>; expiresAt: number }>();

  async renew(hostId: string, runIds: readonly string[], ttlMs: number): Promise<void> {
    this.leases.set(hostId, { runIds: new Set(runIds), expiresAt: Date.now() + ttlMs });
  }

  async runsOf(hostIds: readonly string[]): Promise<Map<string, ReadonlySet<string>>> {
    const now = Date.now();
    const live = new Map<string, ReadonlySet<string>>();
    for (const hostId of hostIds) {
      const lease = this.leases.get(hostId);
      if (lease && lease.expiresAt > now) live.set(hostId, lease.runIds);
    }
    return live;
  }

  async remove(hostId: string): Promise<void> {
    this.leases.delete(hostId);
  }
}
