/** The previous and the next page of a keyset-paged list; the labels say which way they go. */
export function Pager({
  page,
  canGoBack,
  canGoOn,
  onPrevious,
  onNext,
  previousLabel = "← Previous",
  nextLabel = "Next →",
}: {
  page: number;
  canGoBack: boolean;
  canGoOn: boolean;
  onPrevious: () => void;
  onNext: () => void;
  previousLabel?: string;
  nextLabel?: string;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="btn" disabled={!canGoBack} onClick={onPrevious}>
        {previousLabel}
      </button>
      <span className="muted small">Page {page}</span>
      <button type="button" className="btn" disabled={!canGoOn} onClick={onNext}>
        {nextLabel}
      </button>
    </nav>
  );
}
