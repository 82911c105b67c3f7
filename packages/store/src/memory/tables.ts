import type { AuditEntry, BulkJob, BulkJobItem } from "@oah/contract";
import type { RunEventType } from "@oah/core";
import type { EventRow, RunRow, StepRow } from "../rows";
import { encodeJson } from "../sql/client";

/**
 * A run as the in-memory store keeps it: the columns of the SQL stores' `runs`, JSON
 * values held as JSON text (as SQLite does), so that what is read back is a copy,
 * encoded and decoded as the SQL stores do.
 */
export interface RunRecord extends RunRow {
  input: string;
  output: string | null;
  metadata: string;
  /** A delivered tool result not yet taken, wrapped (`{ value }`); null: none. */
  tool_result: string | null;
  /** What a parked run's executor saved; null unless parked. */
  parked_state: string | null;
}

/** A bulk job as the in-memory store keeps it: what the API shows, and who works it. */
export interface BulkJobRecord {
  job: BulkJob;
  includeCancelled: boolean;
  leaseOwner: string | null;
  leaseUntil: number | null;
}

export interface SessionRecord {
  id: string;
  workspace_id: string;
  last_seq: number;
  created_at: number;
  updated_at: number;
}

/** A JSON value as the stores keep it: its text, or null for an absent value (SQL NULL). */
export const toJson = (value: unknown): string | null =>
  value === undefined || value === null ? null : encodeJson(value);

/** A JSON column read back. */
export const fromJson = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value);

/** Text order, as the SQL stores compare text columns (binary collation). */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The tables of one in-memory store: sessions, runs (by id, and each session's in
 * submission order), events and steps (each run's in id order), and their id sequences.
 */
export class MemoryTables {
  readonly sessions = new Map<string, SessionRecord>();
  /** Bulk jobs by id, with their lease and options, and each one's items in order. */
  readonly bulkJobs = new Map<string, BulkJobRecord>();
  readonly bulkItems = new Map<string, BulkJobItem[]>();
  /** The audit log, oldest first, and the last id it gave. */
  audit: AuditEntry[] = [];
  lastAuditId = 0;
  readonly runs = new Map<string, RunRecord>();
  private readonly sessionRuns = new Map<string, RunRecord[]>();
  private readonly events = new Map<string, EventRow[]>();
  private readonly steps = new Map<string, StepRow[]>();
  private readonly stepsById = new Map<number, StepRow>();
  private lastEventId = 0;
  private lastStepId = 0;

  insertRun(run: RunRecord): void {
    if (this.runs.has(run.id)) throw new Error(`a run with id ${run.id} exists already`);
    this.runs.set(run.id, run);
    const runs = this.sessionRuns.get(run.session_id);
    if (runs) runs.push(run);
    else this.sessionRuns.set(run.session_id, [run]);
  }

  /** The session's runs in seq order. */
  runsOf(sessionId: string): readonly RunRecord[] {
    return this.sessionRuns.get(sessionId) ?? [];
  }

  insertEvent(runId: string, type: RunEventType, at: number, data?: Record<string, unknown>): void {
    const row: EventRow = { id: ++this.lastEventId, run_id: runId, type, at, data: toJson(data) };
    const events = this.events.get(runId);
    if (events) events.push(row);
    else this.events.set(runId, [row]);
  }

  eventsOf(runId: string): readonly EventRow[] {
    return this.events.get(runId) ?? [];
  }

  insertStep(step: Omit<StepRow, "id">): number {
    const row: StepRow = { id: ++this.lastStepId, ...step };
    this.stepsById.set(row.id, row);
    const steps = this.steps.get(step.run_id);
    if (steps) steps.push(row);
    else this.steps.set(step.run_id, [row]);
    return row.id;
  }

  step(stepId: number): StepRow | undefined {
    return this.stepsById.get(stepId);
  }

  stepsOf(runId: string): readonly StepRow[] {
    return this.steps.get(runId) ?? [];
  }
}
