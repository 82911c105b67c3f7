/**
 * Fair shares of the workers between workspaces (docs/spec.md §5), by stride scheduling:
 * each workspace has a pass; a claim goes to the claimable workspace of least pass
 * (ties: the smaller workspace id, byte order), whose pass then moves one stride,
 * 1 / weight, further. So over any stretch where they all wait, workspaces get claims
 * in proportion to their weights, however many sessions each has ready. Virtual time
 * is the pass of the last workspace served before its stride: a workspace that comes
 * back starts no earlier, so it cannot bank the turns it did not want while away.
 *
 * The queues apply these rules in O(log n); `fairShareOrder` is their plain reference.
 */
export interface FairShare {
  /** workspaceId → weight; a workspace not listed weighs 1. */
  weights: Record<string, number>;
  /** workspaceId → the most sessions it may hold locked at once, on all hosts; not listed: no cap. */
  caps: Record<string, number>;
}

/** Equal weights, no caps. */
export const DEFAULT_FAIR_SHARE: FairShare = { weights: {}, caps: {} };

// Own properties only: a workspace may well be named "constructor".
export function weightOf(fairShare: FairShare, workspaceId: string): number {
  return Object.hasOwn(fairShare.weights, workspaceId) ? fairShare.weights[workspaceId]! : 1;
}

export function capOf(fairShare: FairShare, workspaceId: string): number | undefined {
  return Object.hasOwn(fairShare.caps, workspaceId) ? fairShare.caps[workspaceId] : undefined;
}

export const isDefaultFairShare = (fairShare: FairShare): boolean =>
  Object.keys(fairShare.weights).length === 0 && Object.keys(fairShare.caps).length === 0;

/**
 * A workspace's pass after a claim. The Lua of the Redis queue computes the same
 * expression on the same doubles, so that both queues order claims bit for bit alike.
 */
export function passAfterClaim(pass: number, weight: number): number {
  return pass + 1 / weight;
}

/**
 * The pass of a workspace that becomes claimable (it was not): the one it kept, or
 * virtual time if that is later or it kept none. A kept pass at or behind virtual
 * time is therefore worth nothing, and may be dropped.
 */
export function wakePass(kept: number | undefined, vtime: number): number {
  return kept === undefined ? vtime : Math.max(kept, vtime);
}

/** What happens to the workspaces' sessions, for `fairShareOrder`. */
export type FairShareEvent =
  /** `sessions` sessions of the workspace become ready. */
  | { kind: "ready"; workspaceId: string; sessions: number }
  /** A claim of the oldest ready session of the workspace whose turn it is. */
  | { kind: "claim" }
  /** A held session of the workspace is released; with `again`, it is ready again (it has runs left). */
  | { kind: "release"; workspaceId: string; again?: boolean };

interface Workspace {
  ready: number;
  held: number;
  /** Its pass while it is claimable. */
  pass: number | undefined;
}

/**
 * The reference of the policy: for each claim of `events`, the workspace it goes to
 * (null when none is claimable). A workspace is claimable when it has ready sessions
 * and holds fewer locks than its cap. When no workspace has a ready or held session
 * left, virtual time and the kept passes start over: nobody is owed anything.
 */
export function fairShareOrder(fairShare: FairShare, events: readonly FairShareEvent[]): (string | null)[] {
  const workspaces = new Map<string, Workspace>();
  const kept = new Map<string, number>();
  let vtime = 0;
  const workspace = (id: string): Workspace => {
    const w = workspaces.get(id) ?? { ready: 0, held: 0, pass: undefined };
    workspaces.set(id, w);
    return w;
  };
  const settle = (id: string, w: Workspace) => {
    const cap = capOf(fairShare, id);
    const claimable = w.ready > 0 && (cap === undefined || w.held < cap);
    if (claimable && w.pass === undefined) {
      w.pass = wakePass(kept.get(id), vtime);
      kept.delete(id);
    } else if (!claimable && w.pass !== undefined) {
      if (w.pass > vtime) kept.set(id, w.pass);
      w.pass = undefined;
    }
    if (w.ready === 0 && w.held === 0) workspaces.delete(id);
  };
  const order: (string | null)[] = [];
  for (const event of events) {
    if (event.kind === "claim") {
      let next: [string, Workspace] | undefined;
      // Workspace ids are ASCII: their code unit order is the byte order Redis ties by.
      for (const [id, w] of workspaces) {
        if (w.pass === undefined) continue;
        if (!next || w.pass < next[1].pass! || (w.pass === next[1].pass && id < next[0])) next = [id, w];
      }
      order.push(next?.[0] ?? null);
      if (next) {
        const [id, w] = next;
        vtime = w.pass!;
        w.pass = passAfterClaim(w.pass!, weightOf(fairShare, id));
        w.ready--;
        w.held++;
        settle(id, w);
      }
    } else {
      const w = workspace(event.workspaceId);
      if (event.kind === "ready") w.ready += event.sessions;
      else {
        w.held--;
        if (event.again) w.ready++;
      }
      settle(event.workspaceId, w);
    }
    if (workspaces.size === 0) {
      vtime = 0;
      kept.clear();
    }
  }
  return order;
}
