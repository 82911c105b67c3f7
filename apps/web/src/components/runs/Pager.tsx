export function Pager({
  page,
  canGoBack,
  canGoOn,
  onPrevious,
  onNext,
}: {
  page: number;
  canGoBack: boolean;
  canGoOn: boolean;
  onPrevious: () => void;
  onNext: () => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="btn" disabled={!canGoBack} onClick={onPrevious}>
        ← Previous
      </button>
      <span className="muted small">Page {page}</span>
      <button type="button" className="btn" disabled={!canGoOn} onClick={onNext}>
        Next →
      </button>
    </nav>
  );
}
