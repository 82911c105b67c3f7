import { PAGE_SIZES, type RunFilters } from "@/lib/storage-filters/view";
import { csvExportHref } from "@/lib/storage-links";

/** The panel's title, where the page is, its size, and the export of the whole view. */
export function RunsHead({
  filters,
  caption,
  onFilters,
}: {
  filters: RunFilters;
  caption: string;
  onFilters: (f: Partial<RunFilters>) => void;
}) {
  return (
    <div className="panel-head">
      <h2 id="runs-title">Runs</h2>
      <span className="muted small" aria-live="polite">
        {caption}
      </span>
      <div className="spacer" />
      <label className="inline-field">
        <span>Rows per page</span>
        <select value={filters.limit} onChange={(event) => onFilters({ limit: Number(event.target.value) })}>
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </label>
      <a className="btn" href={csvExportHref(filters)} download>
        Export CSV
      </a>
    </div>
  );
}
