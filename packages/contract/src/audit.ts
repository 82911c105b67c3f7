import { AUDIT_ACTIONS, type AuditAction, type Role } from "@oah/core";
import { z } from "zod";
import { wholeNumber } from "./json";

/** What an action that ended reports of what it did, kept in its outcome (a repair's sessions, runs cancelled). */
export interface AuditFigures {
  repaired?: number;
  skipped?: number;
  cancelled?: number;
}

/** How an audited action ended: done (with what it did, for some), or refused with the API's error. */
export type AuditOutcome = ({ ok: true } & AuditFigures) | { ok: false; errorCode: string; message: string };

/** One operator action of the audit log (docs/spec.md §13). */
export interface AuditEntry {
  id: number;
  at: string;
  /** The name of the token that acted (`local` without tokens). */
  actor: string;
  role: Role;
  action: AuditAction;
  /** What it acted on: a run, a session, a host, a bulk job… (null: nothing in particular). */
  target: string | null;
  /** What it was asked, as the caller sent it (a tool's result left out). */
  params: unknown;
  outcome: AuditOutcome;
}

export const listAuditInput = z.strictObject({
  actor: z.string().trim().min(1).max(64).optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  limit: wholeNumber(1, 200).default(50),
  /** Opaque: the `nextCursor` of the previous page. */
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, { error: "must be the nextCursor of a page of the audit log" })
    .optional(),
});
export type ListAuditInput = z.infer<typeof listAuditInput>;

/** Newest first. */
export interface AuditPage {
  items: AuditEntry[];
  nextCursor: string | null;
}
