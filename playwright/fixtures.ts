import { createClient, type OahClient } from "@oah/client";
import type { Run, StorageOverview } from "@oah/contract";
import { ApiClient } from "@oah/testing";
import { test as base, expect, type Page } from "@playwright/test";
import { type E2EState, readState } from "./support/state";

export { expect };

/** `api` is raw HTTP, for the paths @oah/client leaves out (the storage lists) and answers read status by status. */
export const test = base.extend<{ api: ApiClient; oah: OahClient }, { state: E2EState }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  state: [async ({}, use) => use(readState()), { scope: "worker" }],
  baseURL: async ({ state }, use) => use(state.consoleUrl),
  api: async ({ state }, use) => use(new ApiClient(state.apiUrl)),
  oah: async ({ state }, use) => use(createClient({ baseUrl: state.apiUrl })),
});

/**
 * Opens the storage page and waits until it is live: the runs table only exists once the
 * page is hydrated and its data loaded, and what is typed or clicked before is lost.
 */
export async function openStorage(page: Page, path = "/storage"): Promise<void> {
  await page.goto(path);
  await expect(page.locator("table.runs-table")).toBeVisible();
}

/** Every run of a storage query, straight from oah-api (all pages), newest first. */
export async function apiRunIds(api: ApiClient, query: Record<string, string> = {}): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const params: URLSearchParams = new URLSearchParams({
      ...query,
      limit: "200",
      ...(cursor ? { cursor } : {}),
    });
    const res: { status: number; body: { items: Run[]; nextCursor: string | null } } = await api.get(
      `/api/v1/storage/runs?${params}`,
    );
    if (res.status !== 200)
      throw new Error(`storage/runs ${params}: ${res.status} ${JSON.stringify(res.body)}`);
    ids.push(...res.body.items.map((r) => r.id));
    cursor = res.body.nextCursor;
  } while (cursor);
  return ids;
}

export async function apiOverview(api: ApiClient): Promise<StorageOverview> {
  return (await api.get<StorageOverview>("/api/v1/storage/overview")).body;
}

/** The run ids the runs table shows, in order. */
export function tableRunIds(page: Page): Promise<string[]> {
  return page
    .locator("table.runs-table tbody tr")
    .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.runId ?? ""));
}

/** The table's rows match what the API lists for the same filters (polled: the table refreshes itself). */
export async function expectTableMatchesApi(page: Page, api: ApiClient, query: Record<string, string>) {
  await expect
    .poll(async () => {
      const [ui, expected] = await Promise.all([tableRunIds(page), apiRunIds(api, query)]);
      return {
        ui,
        expected: expected.slice(0, 50),
        same: JSON.stringify(ui) === JSON.stringify(expected.slice(0, 50)),
      };
    })
    .toMatchObject({ same: true });
}

export function row(page: Page, runId: string) {
  return page.locator(`table.runs-table tbody tr[data-run-id="${runId}"]`);
}

/** Opens one of the multi-select filters and sets its values. */
export async function chooseFilter(page: Page, label: string, values: string[]) {
  await page.getByRole("button", { name: label, exact: true }).click();
  const group = page.getByRole("group", { name: label });
  for (const value of values) await group.getByRole("checkbox", { name: value, exact: true }).check();
  await page.keyboard.press("Escape");
  await expect(group).toBeHidden();
}
