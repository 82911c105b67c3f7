/** The table's place when there is no row: filters that match nothing, the end of the list, or no run at all. */
export function NoRuns({
  filtered,
  page,
  onClear,
}: {
  filtered: boolean;
  page: number;
  onClear: () => void;
}) {
  return (
    <div className="state">
      {filtered ? (
        <>
          <p>
            <strong>No runs match these filters.</strong>
          </p>
          <p className="muted">Widen or clear the filters to see more runs.</p>
          <button type="button" className="btn" onClick={onClear}>
            Clear filters
          </button>
        </>
      ) : page > 1 ? (
        <p>
          <strong>No more runs.</strong> <span className="muted">Go back to the previous page.</span>
        </p>
      ) : (
        <>
          <p>
            <strong>No runs yet.</strong>
          </p>
          <p className="muted">
            Submit one to oah-api, e.g.{" "}
            <code>
              curl -X POST $OAH_API_URL/api/v1/sessions/demo/runs -H 'content-type: application/json' -d
              {' \'{"input":{"steps":[]}}\''}
            </code>
            ; it shows up here within a few seconds.
          </p>
        </>
      )}
    </div>
  );
}
