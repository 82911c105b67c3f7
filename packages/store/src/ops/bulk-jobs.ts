import { setImmediate } from "node:timers/promises";
import type { BulkJob, BulkJobItem, StorageRunFilters } from "@oah/contract";
import { type BulkAction, type BulkJobStatus, type QueueEntry, REQUEUED } from "@oah/core";
import { sql } from "drizzle-orm";
import { iso } from "../rows";
import type { SqlClient } from "../sql/client";
import { storageFilterSql, storageQueryOf } from "../storage-filters";
import { type CancelRequest, cancelledSessions, requestCancelsIn } from "./cancel";
import type { OpContext } from "./context";
import { requeuedSessions, requeueRunsIn } from "./requeue-runs";

/** A bulk job to start (docs/spec.md §9): its runs are the ones the filter matches now. */
export interface NewBulkJob {
  id: string;
  action: BulkAction;
  /** The filter as the API took it: kept with the job, shown back, and matched (storageQueryOf). */
  filter: StorageRunFilters;
  /** Who starts it (the caller), and the name it gave as who asks, beside it. */
  requestedBy: string;
  claimedBy: string | null;
  includeCancelled: boolean;
  /** A requeue's runs start over from their first step instead of going on from their checkpoints. */
  fromStart?: boolean;
  /** Who starts it: it holds the job's lease while the runs matched are written as its items. */
  owner: string;
  leaseMs: number;
}

/** What one chunk of a job did, for the queue and the hosts to be told after it committed. */
export interface BulkChunk {
  job: BulkJob;
  /** Runs requeued: to enqueue. */
  requeued: QueueEntry[];
  /** Executing runs asked to cancel: their hosts are to be told. */
  cancelRequested: string[];
  /** Parked runs cancelled where they waited: their sessions go on. */
  parkedCancelled: { id: string; sessionId: string }[];
}

export interface BulkItemQuery {
  id: string;
  outcome?: string;
  afterPosition?: number;
  limit: number;
}

interface JobRow {
  id: string;
  action: string;
  filter: unknown;
  requested_by: string;
  claimed_by: string | null;
  include_cancelled: number;
  from_start: number;
  status: string;
  total: number;
  done: number;
  outcomes: unknown;
  error: string | null;
  started_at: number | string;
  ended_at: number | string | null;
  lease_owner: string | null;
  matching: number | string;
}

const JOB_COLUMNS =
  sql.raw(`id, action, filter, requested_by, claimed_by, include_cancelled, from_start, status, total, done, outcomes,
  error, started_at, ended_at, lease_owner, matching`);

function decodeJob(row: JobRow, db: SqlClient): BulkJob {
  return {
    id: row.id,
    action: row.action as BulkAction,
    status: row.status as BulkJobStatus,
    total: Number(row.total),
    done: Number(row.done),
    outcomes: db.decodeJson(row.outcomes) as Record<string, number>,
    filter: db.decodeJson(row.filter) as StorageRunFilters,
    requestedBy: row.requested_by,
    claimedBy: row.claimed_by,
    startedAt: iso(Number(row.started_at)),
    endedAt: row.ended_at === null ? null : iso(Number(row.ended_at)),
    error: row.error,
  };
}

/** Runs written as a job's items per transaction while it matches them. */
export const MATCH_PAGE = 1_000;

/**
 * Starts a job: its items are the runs its filter matches, those created up to its start, in
 * creation order. They are written a page per transaction, the event loop let go between two
 * (SQLite runs a statement on this thread: one over 100,000 runs held it for a fifth of a
 * second), under the lease of `owner`, who starts it; a starter that dies leaves the rest to
 * whoever takes the lapsed lease (runBulkChunk). Resolves once they are all written.
 */
export async function createBulkJob(ctx: OpContext, job: NewBulkJob): Promise<BulkJob> {
  const now = ctx.now();
  await ctx.db.run(sql`INSERT INTO bulk_jobs (id, action, filter, requested_by, claimed_by, include_cancelled,
      from_start, status, total, done, outcomes, started_at, lease_owner, lease_until, matching)
    VALUES (${job.id}, ${job.action}, ${ctx.db.json(job.filter)}, ${job.requestedBy}, ${job.claimedBy},
      ${job.includeCancelled ? 1 : 0}, ${job.fromStart ? 1 : 0}, 'running', 0, 0, ${ctx.db.json({})}, ${now},
      ${job.owner}, ${now + job.leaseMs}, 1)`);
  for (;;) {
    const matched = await ctx.db.transaction((tx) =>
      matchPage(tx, job.id, job.owner, { leaseMs: job.leaseMs, now: ctx.now(), release: true }),
    );
    if (matched === null || Number(matched.matching) === 0) break;
    await setImmediate();
  }
  return (await getBulkJob(ctx, job.id))!;
}

/**
 * Writes the next page of a matching job's items, in the caller's transaction, for the owner
 * of its lease (null otherwise, or once it stopped running): the runs after the last item's,
 * as its filter matches them now. After the last page it matches no more (and ends at once,
 * `completed`, if it matched nothing); `release` frees its lease then, for a runner to take.
 */
async function matchPage(
  tx: SqlClient,
  jobId: string,
  owner: string,
  at: { leaseMs: number; now: number; release: boolean },
): Promise<JobRow | null> {
  const job = await leasedJob(tx, jobId, owner);
  if (!job || Number(job.matching) === 0) return job;
  return matchNextPage(tx, job, at);
}

/** The job, locked, if it runs under this owner's lease. */
async function leasedJob(tx: SqlClient, jobId: string, owner: string): Promise<JobRow | null> {
  const [job] = await tx.all<JobRow>(
    sql`SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE id = ${jobId} ${tx.forUpdate}`,
  );
  return job?.status === "running" && job.lease_owner === owner ? job : null;
}

async function matchNextPage(
  tx: SqlClient,
  job: JobRow,
  at: { leaseMs: number; now: number; release: boolean },
): Promise<JobRow> {
  const jobId = job.id;
  const owner = job.lease_owner;
  const total = Number(job.total);
  const query = storageQueryOf(tx.decodeJson(job.filter) as StorageRunFilters);
  const where = [...storageFilterSql(query), sql`created_at <= ${Number(job.started_at)}`];
  if (total > 0) {
    // After the run of the last item: the keyset of (created_at, id), as the Storage list pages.
    const [after] = await tx.all<{
      created_at: number | string;
      id: string;
    }>(sql`SELECT runs.created_at, runs.id
      FROM bulk_job_items JOIN runs ON runs.id = bulk_job_items.run_id
      WHERE bulk_job_items.job_id = ${jobId} AND bulk_job_items.position = ${total}`);
    where.push(sql`(created_at, id) > (${Number(after!.created_at)}, ${after!.id})`);
  }
  const added = await tx.run(sql`INSERT INTO bulk_job_items (job_id, position, run_id)
    SELECT ${jobId}, CAST(${total} AS integer) + ROW_NUMBER() OVER (ORDER BY created_at, id), id
    FROM (SELECT created_at, id FROM runs WHERE ${sql.join(where, sql` AND `)}
      ORDER BY created_at, id LIMIT ${MATCH_PAGE}) AS page`);
  const last = added < MATCH_PAGE;
  const empty = last && total + added === 0;
  const [row] = await tx.all<JobRow>(sql`UPDATE bulk_jobs SET total = total + ${added},
      matching = ${last ? 0 : 1}, status = ${empty ? "completed" : "running"},
      ended_at = ${empty ? at.now : null},
      lease_owner = ${last && at.release ? null : owner},
      lease_until = ${last && at.release ? null : at.now + at.leaseMs}
    WHERE id = ${jobId} RETURNING ${JOB_COLUMNS}`);
  return row!;
}

/** A running job whose lease is free or lapsed, now leased to `owner` (the oldest first). */
export async function leaseBulkJob(ctx: OpContext, owner: string, leaseMs: number): Promise<BulkJob | null> {
  const { db } = ctx;
  const now = ctx.now();
  const free = sql`status = 'running' AND (lease_until IS NULL OR lease_until < ${now})`;
  // The condition again on the row itself: of two processes that picked the same job, one leases it.
  const [row] =
    await db.all<JobRow>(sql`UPDATE bulk_jobs SET lease_owner = ${owner}, lease_until = ${now + leaseMs}
    WHERE id = (SELECT id FROM bulk_jobs WHERE ${free} ORDER BY started_at LIMIT 1) AND ${free}
    RETURNING ${JOB_COLUMNS}`);
  return row ? decodeJob(row, db) : null;
}

/** How a cancel ended, as a job's outcome. */
const cancelOutcomeOf = (request: CancelRequest): string =>
  request.kind === "cancelled"
    ? "cancelled"
    : request.kind === "requested"
      ? "cancel_requested"
      : request.kind === "terminal"
        ? "run_already_ended"
        : "run_not_found";

/**
 * Acts on the next `limit` items of a job this owner leases: each run's change and its outcome
 * in the same transaction, so that a job resumed after its worker died never acts twice on a
 * run, and what it did is what is recorded. Items are done in order, so the next are those
 * after the job's `done`: every statement finds its rows by key, whatever the job's size. A job
 * whose starter died before its items were all written gets its next page of them instead.
 */
export async function runBulkChunk(
  ctx: OpContext,
  jobId: string,
  owner: string,
  limit: number,
  leaseMs: number,
  maxAttempts: number,
): Promise<BulkChunk | null> {
  const now = ctx.now();
  /** The sessions of the runs the chunk wrote, announced once it committed. */
  const wrote: string[] = [];
  const chunk = await ctx.db.transaction(async (tx): Promise<BulkChunk | null> => {
    const job = await leasedJob(tx, jobId, owner);
    if (!job) return null;
    const chunk: Omit<BulkChunk, "job"> = { requeued: [], cancelRequested: [], parkedCancelled: [] };
    if (Number(job.matching) === 1) {
      const matched = await matchNextPage(tx, job, { leaseMs, now, release: false });
      return { job: decodeJob(matched, tx), ...chunk };
    }
    const done = Number(job.done);
    const items = await tx.all<{ position: number; run_id: string }>(sql`SELECT position, run_id
      FROM bulk_job_items WHERE job_id = ${jobId} AND position > ${done} ORDER BY position LIMIT ${limit}`);
    const runIds = items.map((i) => i.run_id);
    const ended: { outcome: string; message: string | null }[] = [];
    if (job.action === "requeue") {
      const request = {
        by: job.requested_by,
        claimedBy: job.claimed_by,
        maxAttempts,
        includeCancelled: Number(job.include_cancelled) === 1,
        fromStart: Number(job.from_start) === 1,
      };
      const requeues = await requeueRunsIn(tx, runIds, request, now);
      wrote.push(...requeuedSessions(requeues));
      for (const requeue of requeues) {
        if (requeue.ok) chunk.requeued.push(requeue.queueEntry);
        ended.push(
          requeue.ok
            ? { outcome: REQUEUED, message: null }
            : { outcome: requeue.code, message: requeue.message },
        );
      }
    } else {
      const cancels = await requestCancelsIn(tx, runIds, now);
      wrote.push(...cancelledSessions(cancels));
      for (const [i, cancel] of cancels.entries()) {
        if (cancel.kind === "requested") chunk.cancelRequested.push(runIds[i]!);
        if (cancel.kind === "cancelled" && cancel.parked)
          chunk.parkedCancelled.push({ id: runIds[i]!, sessionId: cancel.run.sessionId });
        ended.push({ outcome: cancelOutcomeOf(cancel), message: null });
      }
    }
    const outcomes = tx.decodeJson(job.outcomes) as Record<string, number>;
    for (const { outcome } of ended) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if (items.length > 0) {
      const rows = tx.rowsOf(
        3,
        items.map((item, i) => [String(item.position), ended[i]!.outcome, ended[i]!.message]),
      );
      // The range too: whichever way the planner joins, it reads the chunk's items only.
      await tx.run(sql`UPDATE bulk_job_items SET outcome = v.column2, message = v.column3 FROM ${rows}
        WHERE bulk_job_items.job_id = ${jobId}
          AND bulk_job_items.position BETWEEN ${items[0]!.position} AND ${items[items.length - 1]!.position}
          AND bulk_job_items.position = CAST(v.column1 AS integer)`);
    }
    const finished = items.length < limit;
    const [updated] = await tx.all<JobRow>(sql`UPDATE bulk_jobs SET done = done + ${items.length},
        outcomes = ${tx.json(outcomes)}, lease_until = ${now + leaseMs},
        status = ${finished ? "completed" : "running"}, ended_at = ${finished ? now : null}
      WHERE id = ${jobId} RETURNING ${JOB_COLUMNS}`);
    return { job: decodeJob(updated!, tx), ...chunk };
  });
  ctx.wrote(wrote);
  return chunk;
}

export async function getBulkJob({ db }: OpContext, id: string): Promise<BulkJob | null> {
  const [row] = await db.all<JobRow>(sql`SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE id = ${id}`);
  return row ? decodeJob(row, db) : null;
}

/** The newest jobs first. */
export async function listBulkJobs({ db }: OpContext, limit: number): Promise<BulkJob[]> {
  const rows = await db.all<JobRow>(sql`SELECT ${JOB_COLUMNS} FROM bulk_jobs
    ORDER BY started_at DESC, id DESC LIMIT ${limit}`);
  return rows.map((r) => decodeJob(r, db));
}

export async function listBulkJobItems({ db }: OpContext, query: BulkItemQuery): Promise<BulkJobItem[]> {
  const rows = await db.all<{
    position: number;
    run_id: string;
    outcome: string | null;
    message: string | null;
  }>(sql`
    SELECT position, run_id, outcome, message FROM bulk_job_items
    WHERE job_id = ${query.id} AND position > ${query.afterPosition ?? 0}
      ${query.outcome === undefined ? sql`` : sql`AND outcome = ${query.outcome}`}
    ORDER BY position LIMIT ${query.limit}`);
  return rows.map((r) => ({
    position: Number(r.position),
    runId: r.run_id,
    outcome: r.outcome,
    message: r.message,
  }));
}

/** Stops a running job where it is; the job as it ends (or as it was), null when unknown. */
export async function abortBulkJob(ctx: OpContext, id: string): Promise<BulkJob | null> {
  const { db } = ctx;
  const [row] = await db.all<JobRow>(sql`UPDATE bulk_jobs SET status = 'aborted', ended_at = ${ctx.now()},
      lease_owner = NULL, lease_until = NULL
    WHERE id = ${id} AND status = 'running' RETURNING ${JOB_COLUMNS}`);
  return row ? decodeJob(row, db) : getBulkJob(ctx, id);
}

/** Ends a job its owner cannot go on with (its chunks keep failing), saying why. */
export async function failBulkJob(ctx: OpContext, id: string, owner: string, error: string): Promise<void> {
  await ctx.db.run(sql`UPDATE bulk_jobs SET status = 'failed', error = ${error}, ended_at = ${ctx.now()},
      lease_owner = NULL, lease_until = NULL
    WHERE id = ${id} AND status = 'running' AND lease_owner = ${owner}`);
}
