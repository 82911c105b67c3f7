import { type FairShare, passAfterClaim, wakePass, weightOf } from "@oah/core";
import { MinHeap } from "./min-heap";

interface Turn {
  workspaceId: string;
  pass: number;
}

/** Kept passes are swept of those behind virtual time when they reach this many (or twice as many as the last sweep left). */
const SWEEP_MIN = 64;

/**
 * Whose turn it is among the claimable workspaces of the in-process queue, by the rules
 * of @oah/core's fair-share.ts (the Redis queue's Lua applies the same): the least pass
 * first, ties to the smaller id, in O(log n). A workspace that stops being claimable
 * leaves its heap entry behind, dropped when it comes to the top.
 */
export class WorkspaceTurns {
  // Workspace ids are ASCII: their code unit order is the byte order Redis ties by.
  private readonly heap = new MinHeap<Turn>(
    (a, b) => a.pass < b.pass || (a.pass === b.pass && a.workspaceId < b.workspaceId),
  );
  /** The claimable workspaces, each with the heap entry that stands for it. */
  private readonly claimable = new Map<string, Turn>();
  /** The passes of workspaces that left the claimable set ahead of virtual time. */
  private readonly kept = new Map<string, number>();
  private vtime = 0;
  private sweepAt = SWEEP_MIN;

  constructor(private readonly fairShare: FairShare) {}

  get anyClaimable(): boolean {
    return this.claimable.size > 0;
  }

  isClaimable(workspaceId: string): boolean {
    return this.claimable.has(workspaceId);
  }

  /** The claimable workspace whose turn it is. */
  next(): string | undefined {
    for (let top = this.heap.peek(); top; top = this.heap.peek()) {
      if (this.claimable.get(top.workspaceId) === top) return top.workspaceId;
      this.heap.pop();
    }
    return undefined;
  }

  /** A claim went to `workspaceId`: virtual time comes to its pass, which moves one stride on. */
  charge(workspaceId: string): void {
    const turn = this.claimable.get(workspaceId)!;
    if (this.heap.peek() === turn) this.heap.pop();
    this.vtime = turn.pass;
    this.enter(workspaceId, passAfterClaim(turn.pass, weightOf(this.fairShare, workspaceId)));
    this.sweep();
  }

  /**
   * Makes a workspace claimable, at its kept pass or virtual time, whichever is later,
   * if it was not; or not claimable, keeping its pass if it is ahead of virtual time.
   */
  set(workspaceId: string, claimable: boolean): void {
    const turn = this.claimable.get(workspaceId);
    if (claimable && !turn) {
      this.enter(workspaceId, wakePass(this.kept.get(workspaceId), this.vtime));
      this.kept.delete(workspaceId);
    } else if (!claimable && turn) {
      this.claimable.delete(workspaceId);
      if (turn.pass > this.vtime) this.kept.set(workspaceId, turn.pass);
    }
  }

  /** No workspace has a session waiting or a lock held: nobody is owed anything. */
  reset(): void {
    this.vtime = 0;
    this.kept.clear();
    this.heap.clear();
    this.claimable.clear();
  }

  private enter(workspaceId: string, pass: number): void {
    const turn = { workspaceId, pass };
    this.claimable.set(workspaceId, turn);
    this.heap.push(turn);
  }

  // A kept pass at or behind virtual time is worth no more than it: such passes go now
  // and then, so that workspaces that came once and left do not pile up.
  private sweep(): void {
    if (this.kept.size < this.sweepAt) return;
    for (const [workspaceId, pass] of this.kept) if (pass <= this.vtime) this.kept.delete(workspaceId);
    this.sweepAt = Math.max(SWEEP_MIN, 2 * this.kept.size);
  }
}
