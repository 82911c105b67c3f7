import type { Run } from "@oah/contract";
import { ago, between, duration } from "../format";

export interface TimelineEntry {
  label: string;
  at: string | null;
  note?: string;
}

/** A run's instants in order, each with how long the run waited or ran up to it where that is known. */
export function timelineEntries(run: Run, now = Date.now()): TimelineEntry[] {
  return [
    { label: "created", at: run.createdAt },
    {
      label: "started",
      at: run.startedAt,
      note: run.startedAt ? `waited ${duration(between(run.createdAt, run.startedAt))}` : undefined,
    },
    {
      label: "heartbeat",
      at: run.heartbeatAt,
      // Only a run still going has a heartbeat worth its age.
      note: run.heartbeatAt && !run.endedAt ? ago(run.heartbeatAt, now) : undefined,
    },
    ...(run.cancelRequestedAt ? [{ label: "cancel requested", at: run.cancelRequestedAt }] : []),
    {
      label: "ended",
      at: run.endedAt,
      note: run.endedAt && run.startedAt ? `ran ${duration(between(run.startedAt, run.endedAt))}` : undefined,
    },
  ];
}
