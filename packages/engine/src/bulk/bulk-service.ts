import { setImmediate } from "node:timers/promises";
import type {
  BulkActionInput,
  BulkDryRun,
  BulkJob,
  BulkJobItemsPage,
  ListBulkJobItemsInput,
} from "@oah/contract";
import { OahError } from "@oah/core";
import { newBulkJobId } from "@oah/core/run-id";
import { type BulkJobStore, type RunReads, storageQueryOf } from "@oah/store";
import { keysetPage } from "../service/keyset-page";
import { normalizeFilters } from "../service/storage-cursor";
import type { BulkJobRunner } from "./bulk-runner";
import { bulkOutcome } from "./classify";

/**
 * Runs read at a time by a dry run. On SQLite a page is read on the event loop's thread, and
 * between two the loop serves the others: 1,000 at a time held it 10 ms, and six dry runs at
 * once read six pages in one turn of it.
 */
const DRY_RUN_PAGE = 100;
/** Run ids shown per outcome by a dry run. */
const EXAMPLES = 5;

/**
 * Bulk actions by filter (docs/spec.md §9): a dry run says what an action would do to every run
 * the filter matches; a start makes it a job of the store's, worked by the API processes' runner.
 */
export class BulkService {
  constructor(
    private readonly store: BulkJobStore & Pick<RunReads, "listRuns">,
    private readonly runner: Pick<BulkJobRunner, "wake">,
    /** Who starts jobs here (this host), holding a job's lease while its runs are matched. */
    private readonly starter: { owner: string; leaseMs: number },
  ) {}

  async dryRun(input: BulkActionInput): Promise<BulkDryRun> {
    const query = storageQueryOf(input.filter);
    const outcomes: Record<string, number> = {};
    const examples: Record<string, string[]> = {};
    let matched = 0;
    let after: { createdAt: number; id: string } | undefined;
    for (;;) {
      const page = await this.store.listRuns({ ...query, after, limit: DRY_RUN_PAGE });
      for (const run of page) {
        const outcome = bulkOutcome(input.action, run, input.includeCancelled);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        examples[outcome] ??= [];
        if (examples[outcome].length < EXAMPLES) examples[outcome].push(run.id);
      }
      matched += page.length;
      const last = page[page.length - 1];
      if (!last || page.length < DRY_RUN_PAGE) break;
      after = { createdAt: Date.parse(last.createdAt), id: last.id };
      await setImmediate();
    }
    return { matched, outcomes, examples };
  }

  /** Starts a job as `caller` asks it; the name its input gives as who asks is kept beside. */
  async start(input: BulkActionInput, caller: string): Promise<BulkJob> {
    const filter = normalizeFilters(input.filter);
    const job = await this.store.createBulkJob({
      id: newBulkJobId(),
      action: input.action,
      filter,
      requestedBy: caller,
      claimedBy: input.requestedBy ?? null,
      includeCancelled: input.includeCancelled,
      fromStart: input.fromStart,
      ...this.starter,
    });
    this.runner.wake();
    return job;
  }

  async get(id: string): Promise<BulkJob> {
    const job = await this.store.getBulkJob(id);
    if (!job) throw new OahError("bulk_job_not_found", `no bulk job with id ${id}`);
    return job;
  }

  list(limit: number): Promise<BulkJob[]> {
    return this.store.listBulkJobs(limit);
  }

  async items(input: ListBulkJobItemsInput): Promise<BulkJobItemsPage> {
    await this.get(input.id);
    const items = await this.store.listBulkJobItems({
      id: input.id,
      outcome: input.outcome,
      afterPosition: input.cursor === undefined ? undefined : Number(input.cursor),
      limit: input.limit,
    });
    return keysetPage(items, input.limit, (last) => last.position);
  }

  async abort(id: string): Promise<BulkJob> {
    const job = await this.store.abortBulkJob(id);
    if (!job) throw new OahError("bulk_job_not_found", `no bulk job with id ${id}`);
    return job;
  }
}
