/**
 * How many event streams (Server-Sent Events, tRPC subscriptions) one server holds at once
 * (docs/spec.md §13): per caller, per client address and in all. A stream lives for as long as
 * its client keeps it, so streams have caps of their own, well below the connection caps: what
 * they cannot take is left to ordinary requests and probes.
 */
export interface StreamCaps {
  /** Per caller: a token's name (oah-api), a signed-in session (the console). */
  perCaller: number;
  perAddress: number;
  total: number;
}

export type StreamCap = keyof StreamCaps;

/** Who holds a stream. `caller` is absent where callers cannot be told apart (no tokens: everyone is `local`). */
export interface StreamHolder {
  caller?: string;
  address: string;
}

/** The streams already held by one newcomer's caller (null: not counted), its address and everyone. */
export interface HeldStreams {
  caller: number | null;
  address: number;
  total: number;
}

/** The cap that one more stream would pass, the narrowest first; null when it fits. */
export function streamCapPassed(held: HeldStreams, caps: StreamCaps): StreamCap | null {
  if (held.caller !== null && held.caller >= caps.perCaller) return "perCaller";
  if (held.address >= caps.perAddress) return "perAddress";
  if (held.total >= caps.total) return "total";
  return null;
}

/**
 * What a refused stream is told to wait (`Retry-After`, seconds): a slot frees when some client
 * leaves, which nothing foretells; a few seconds keep retries from becoming a flood of their own.
 */
export const STREAM_RETRY_AFTER_SECONDS = 5;

export type StreamSlot = { ok: true; release: () => void } | { ok: false; cap: StreamCap; limit: number };

const bump = (counts: Map<string, number>, key: string, by: number) => {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
};

/** The streams a server holds now, counted by caller and address; each slot is given back once. */
export class StreamSlots {
  private readonly byCaller = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();
  private held = 0;

  constructor(readonly caps: StreamCaps) {}

  /** Streams held now. */
  get size(): number {
    return this.held;
  }

  take(holder: StreamHolder): StreamSlot {
    const { caller, address } = holder;
    const cap = streamCapPassed(
      {
        caller: caller === undefined ? null : (this.byCaller.get(caller) ?? 0),
        address: this.byAddress.get(address) ?? 0,
        total: this.held,
      },
      this.caps,
    );
    if (cap) return { ok: false, cap, limit: this.caps[cap] };
    if (caller !== undefined) bump(this.byCaller, caller, 1);
    bump(this.byAddress, address, 1);
    this.held++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        if (caller !== undefined) bump(this.byCaller, caller, -1);
        bump(this.byAddress, address, -1);
        this.held--;
      },
    };
  }
}
