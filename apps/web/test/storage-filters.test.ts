// @module-tag unit

import { describe, expect, it } from "vitest";
import { STORAGE_FILTERS } from "../src/lib/storage-filters/table";
import {
  EMPTY_FILTERS,
  type FilterName,
  filterProblems,
  filtersToInput,
  filtersToQuery,
  hasFilters,
  isOnly,
  parseFilters,
  type RunFilters,
} from "../src/lib/storage-filters/view";

const RUN = "run_01JABCDEFGHJKMNPQRSTVWXYZ0";
const view = (change: Partial<RunFilters>): RunFilters => ({ ...EMPTY_FILTERS, ...change });
const parse = (query: string) => parseFilters(new URLSearchParams(query));

describe("a view from its URL", () => {
  it.each<[string, Partial<RunFilters>]>([
    ["", {}],
    ["status=failed,timed_out", { status: ["failed", "timed_out"] }],
    // Each value once, in the order of the known values; unknown ones are dropped.
    ["status=timed_out,nope,failed,failed", { status: ["failed", "timed_out"] }],
    [
      "errorCode=tool_failed, worker_recovery_failed",
      { errorCode: ["worker_recovery_failed", "tool_failed"] },
    ],
    ["recoveryState=quarantined,requeued", { recoveryState: ["requeued", "quarantined"] }],
    ["recoveryState=", {}],
    ["sessionId=%20checkout-2%20", { sessionId: "checkout-2" }],
    [`runId=${RUN}&workspaceId=ws`, { runId: RUN, workspaceId: "ws" }],
    ["limit=25", { limit: 25 }],
    ["limit=30", {}],
    ["limit=abc", {}],
  ])("%j", (query, expected) => {
    expect(parse(query)).toEqual(view(expected));
  });
});

describe("the URL of a view", () => {
  it.each<[Partial<RunFilters>, string]>([
    [{}, ""],
    [{ status: ["failed", "timed_out"] }, "?status=failed,timed_out"],
    [{ status: ["timed_out", "failed"] }, "?status=failed,timed_out"],
    [{ limit: 50 }, ""],
    [{ limit: 200 }, "?limit=200"],
    [{ sessionId: "a b&c" }, "?sessionId=a%20b%26c"],
    [
      {
        limit: 25,
        workspaceId: "ws",
        runId: RUN,
        sessionId: "s",
        recoveryState: ["quarantined"],
        errorCode: ["tool_failed"],
        status: ["failed"],
      },
      `?status=failed&errorCode=tool_failed&recoveryState=quarantined&sessionId=s&runId=${RUN}&workspaceId=ws&limit=25`,
    ],
  ])("%j → %s", (change, query) => {
    expect(filtersToQuery(view(change))).toBe(query);
  });

  it("reads back as the same view", () => {
    const filters = view({ errorCode: ["run_timed_out"], sessionId: "a:b.c", limit: 100 });
    expect(parse(filtersToQuery(filters).slice(1))).toEqual(filters);
  });
});

describe("which filters are set", () => {
  it.each<[Partial<RunFilters>, boolean]>([
    [{}, false],
    [{ limit: 25 }, false],
    [{ status: ["queued"] }, true],
    [{ workspaceId: "ws" }, true],
  ])("%j → %s", (change, expected) => {
    expect(hasFilters(view(change))).toBe(expected);
  });

  it.each<[Partial<RunFilters>, Partial<RunFilters>, boolean]>([
    [{ recoveryState: ["quarantined"] }, { recoveryState: ["quarantined"] }, true],
    [{ recoveryState: ["quarantined"], limit: 200 }, { recoveryState: ["quarantined"] }, true],
    [{ recoveryState: ["requeued", "quarantined"] }, { recoveryState: ["quarantined", "requeued"] }, true],
    [{ recoveryState: ["quarantined"], sessionId: "s" }, { recoveryState: ["quarantined"] }, false],
    [{ recoveryState: ["requeued"] }, { recoveryState: ["quarantined"] }, false],
    [{}, {}, true],
  ])("%j is only %j: %s", (current, wanted, expected) => {
    expect(isOnly(view(current), wanted)).toBe(expected);
  });
});

describe("problems and the API input", () => {
  it.each<[Partial<RunFilters>, Partial<Record<keyof RunFilters, string>>]>([
    [{ sessionId: "ok-1", workspaceId: "ws.1", runId: RUN }, {}],
    [{ sessionId: "a b" }, { sessionId: "1–128 characters of A–Z a–z 0–9 . _ : -" }],
    [{ sessionId: "x".repeat(129) }, { sessionId: "1–128 characters of A–Z a–z 0–9 . _ : -" }],
    [
      { workspaceId: ".hidden" },
      { workspaceId: "1–64 characters of A–Z a–z 0–9 . _ -, not starting with a dot" },
    ],
    [{ runId: "run_nope" }, { runId: "run_ followed by 26 ULID characters" }],
  ])("%j → %j", (change, problems) => {
    expect(filterProblems(view(change))).toEqual(problems);
  });

  it.each<[Partial<RunFilters>, object]>([
    [{}, {}],
    [{ limit: 25 }, {}],
    [
      { status: ["failed"], recoveryState: ["quarantined", "requeued"], sessionId: "s" },
      { status: ["failed"], recoveryState: ["quarantined", "requeued"], sessionId: "s" },
    ],
    // A filter with a problem is left out; the others are still sent.
    [{ runId: "run_nope", workspaceId: "ws" }, { workspaceId: "ws" }],
  ])("%j → %j", (change, input) => {
    expect(filtersToInput(view(change))).toEqual(input);
  });
});

describe.each(Object.entries(STORAGE_FILTERS))("the %s filter", (name, { control }) => {
  const sample = control.kind === "list" ? control.options.slice(-2).join(",") : "a-1";
  const alone = parse(`${name}=${sample}`);

  it("is set by its URL parameter alone, and reads back as it was written", () => {
    expect(hasFilters(alone)).toBe(true);
    expect(isOnly(alone, { [name]: alone[name as keyof RunFilters] })).toBe(true);
    expect(filtersToQuery(alone)).toBe(`?${name}=${sample}`);
  });

  it("is sent to the API unless it has a problem", () => {
    const sent = { [name]: control.kind === "list" ? sample.split(",") : sample };
    expect(filtersToInput(alone)).toEqual(filterProblems(alone)[name as FilterName] ? {} : sent);
  });

  it("is unset without it", () => {
    expect(filtersToInput(parse(`other=${sample}`))).toEqual({});
  });
});
