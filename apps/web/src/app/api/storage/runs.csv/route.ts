import type { StorageRunsPage } from "@oah/contract";
import type { NextRequest } from "next/server";
import { csvExportStream } from "@/lib/csv-export";
import { filtersToInput, parseFilters } from "@/lib/storage-filters/view";
import { crossSite, fetchUpstream, isFailure, upstreamAuth } from "@/lib/upstream";

export const dynamic = "force-dynamic";

/** Rows asked of the API per page: its maximum, unless `pageSize` (1–200) says otherwise. */
const PAGE = 200;

type Page = { ok: true; page: StorageRunsPage } | { ok: false; status: number; message: string };

/** One page of admin.runs, through oah-api's tRPC endpoint like every other call of the console. */
async function fetchPage(
  auth: Record<string, string>,
  filters: ReturnType<typeof filtersToInput>,
  limit: number,
  cursor: string | undefined,
  signal?: AbortSignal,
): Promise<Page> {
  const input = encodeURIComponent(JSON.stringify({ ...filters, limit, ...(cursor ? { cursor } : {}) }));
  const answer = await fetchUpstream(`/trpc/admin.runs?input=${input}`, {
    method: "GET",
    headers: { accept: "application/json", ...auth },
    timeoutMs: 30_000,
    signal,
  });
  if (isFailure(answer)) return { ok: false, status: answer.httpStatus, message: answer.message };
  const body = (await answer.json().catch(() => null)) as {
    result?: { data?: StorageRunsPage };
    error?: { message?: string };
  } | null;
  if (!answer.ok || !body?.result?.data) {
    const status = answer.status === 401 ? 401 : answer.ok ? 502 : answer.status;
    return { ok: false, status, message: body?.error?.message ?? `oah-api answered ${answer.status}` };
  }
  return { ok: true, page: body.result.data };
}

/**
 * The current view as CSV: every page of the same filters (the URL's query, as on /storage),
 * each read from the API as the download takes the one before (csvExportStream).
 */
export async function GET(request: NextRequest): Promise<Response> {
  if (crossSite(request)) {
    return new Response("requests from other sites are refused\n", { status: 403 });
  }
  const auth = upstreamAuth(request);
  if (!auth.ok) return new Response("sign in to the console first\n", { status: 401 });
  const params = request.nextUrl.searchParams;
  const filters = filtersToInput(parseFilters(params));
  const asked = Math.trunc(Number(params.get("pageSize")));
  const limit = asked >= 1 && asked <= PAGE ? asked : PAGE;

  // The first page before the answer: a refusal is answered with its status, not a broken file.
  const first = await fetchPage(auth.headers, filters, limit, undefined);
  if (!first.ok) return new Response(`${first.message}\n`, { status: first.status });
  const stream = csvExportStream(first.page, (cursor, signal) =>
    fetchPage(auth.headers, filters, limit, cursor, signal),
  );
  const stamp = new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19);
  return new Response(stream, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="oah-runs-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
}
