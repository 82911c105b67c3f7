import type { AuditOutcome, AuditPage, ListAuditInput } from "@oah/contract";
import { type Actor, AttemptLimiter, type AuditAction, auditRateLimited } from "@oah/core";
import type { AuditStore } from "@oah/store";
import type { Logger } from "../logger";
import { keysetPage } from "./keyset-page";

/** What an audited call records besides who, when and its outcome. */
export interface AuditedCall {
  action: AuditAction;
  target: string | null;
  params: unknown;
}

/**
 * The audit log of operator actions (docs/spec.md §13): recorded once the action is done,
 * as the caller asked it and as it ended, and listed newest first.
 */
export class AuditService {
  /** What each token has left of its actions this minute. */
  private readonly actions: AttemptLimiter;

  constructor(
    private readonly store: Pick<AuditStore, "recordAudit" | "listAudit">,
    private readonly logger: Logger,
    /** A token's burst of audited actions, and how many come back a minute. */
    actionsPerMinute: number,
  ) {
    this.actions = new AttemptLimiter({ burst: actionsPerMinute, refillEveryMs: 60_000 / actionsPerMinute });
  }

  /**
   * Counts an action the caller is about to make: 0 when it may, else the milliseconds until
   * it may (the call is then refused, unrecorded, so that nobody fills the log by calling). A
   * run client's calls are not counted (auditRateLimited).
   */
  admit(actor: Actor, action: AuditAction): number {
    return auditRateLimited(action) ? this.actions.take(actor.name) : 0;
  }

  /** Never fails the action it records, which is done: a lost entry is logged instead. */
  async record(actor: Actor, call: AuditedCall, outcome: AuditOutcome): Promise<void> {
    try {
      await this.store.recordAudit({ actor, ...call, outcome });
    } catch (error) {
      this.logger.error(
        { err: error, actor: actor.name, action: call.action, target: call.target, outcome },
        "an operator action could not be recorded in the audit log",
      );
    }
  }

  async list(input: ListAuditInput): Promise<AuditPage> {
    const items = await this.store.listAudit({
      actor: input.actor,
      action: input.action,
      beforeId: input.cursor === undefined ? undefined : Number(input.cursor),
      limit: input.limit,
    });
    return keysetPage(items, input.limit, (last) => last.id);
  }
}
