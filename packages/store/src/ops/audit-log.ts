import type { AuditEntry, AuditOutcome } from "@oah/contract";
import type { Actor, AuditAction, Role } from "@oah/core";
import { sql } from "drizzle-orm";
import { iso, type JsonDecoder } from "../rows";
import type { OpContext } from "./context";

/** An operator action to record (docs/spec.md §13). */
export interface NewAuditEntry {
  actor: Actor;
  action: AuditAction;
  target: string | null;
  params: unknown;
  outcome: AuditOutcome;
}

export interface AuditQuery {
  actor?: string;
  action?: AuditAction;
  /** Entries older than this one (ids grow with time). */
  beforeId?: number;
  limit: number;
}

interface AuditRow {
  id: number | string;
  at: number | string;
  actor: string;
  role: string;
  action: string;
  target: string | null;
  params: unknown;
  outcome: unknown;
}

const decode = (row: AuditRow, db: JsonDecoder): AuditEntry => ({
  id: Number(row.id),
  at: iso(Number(row.at)),
  actor: row.actor,
  role: row.role as Role,
  action: row.action as AuditAction,
  target: row.target,
  params: db.decodeJson(row.params) ?? null,
  outcome: db.decodeJson(row.outcome) as AuditOutcome,
});

export async function recordAudit({ db, now }: OpContext, entry: NewAuditEntry): Promise<void> {
  await db.run(sql`INSERT INTO audit_log (at, actor, role, action, target, params, outcome)
    VALUES (${now()}, ${entry.actor.name}, ${entry.actor.role}, ${entry.action}, ${entry.target},
      ${entry.params === undefined ? null : db.json(entry.params)}, ${db.json(entry.outcome)})`);
}

/** The audit log, newest first; by actor or action through their indexes; a page before an id. */
export async function listAudit({ db }: OpContext, query: AuditQuery): Promise<AuditEntry[]> {
  const where = [
    query.actor === undefined ? null : sql`actor = ${query.actor}`,
    query.action === undefined ? null : sql`action = ${query.action}`,
    query.beforeId === undefined ? null : sql`id < ${query.beforeId}`,
  ].filter((w) => w !== null);
  const rows = await db.all<AuditRow>(sql`SELECT id, at, actor, role, action, target, params, outcome
    FROM audit_log ${where.length > 0 ? sql`WHERE ${sql.join(where, sql` AND `)}` : sql``}
    ORDER BY id DESC LIMIT ${query.limit}`);
  return rows.map((r) => decode(r, db));
}

/** Deletes up to `limit` entries older than `before` (epoch ms), the oldest first; says how many. */
export async function pruneAudit({ db }: OpContext, before: number, limit: number): Promise<number> {
  const rows = await db.all<{ id: number }>(sql`DELETE FROM audit_log WHERE id IN (
      SELECT id FROM audit_log WHERE at < ${before} ORDER BY at LIMIT ${limit}) RETURNING id`);
  return rows.length;
}
