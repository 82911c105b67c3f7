import { errorFacts } from "@/lib/trpc";
import { Time } from "./Time";

/**
 * A refresh that failed while older data is on screen: said plainly, without hiding the data.
 * Queries keep retrying on their own interval.
 */
export function RefreshErrorBanner({ errors, updatedAt }: { errors: unknown[]; updatedAt: number | null }) {
  const present = errors.filter((e) => e !== null && e !== undefined);
  if (present.length === 0) return null;
  const facts = errorFacts(present[0]);
  return (
    <div className="banner banner-error" role="alert">
      <strong>Refresh failed.</strong> {facts.message}
      {facts.errorCode ? (
        <>
          {" "}
          (<code>{facts.errorCode}</code>)
        </>
      ) : null}{" "}
      {updatedAt ? (
        <>
          Showing data from <Time value={updatedAt} />; retrying every few seconds.
        </>
      ) : (
        "Retrying every few seconds."
      )}
    </div>
  );
}

/** A query that never succeeded: what went wrong and what to do about it. */
export function ErrorState({ what, error, onRetry }: { what: string; error: unknown; onRetry?: () => void }) {
  const facts = errorFacts(error);
  let hint = "Check that oah-api is running and that the console's OAH_API_URL points at it.";
  if (facts.errorCode === "invalid_request") hint = "Correct the filter values and try again.";
  if (facts.errorCode === "invalid_cursor") hint = "The page cursor is stale: go back to the first page.";
  if (facts.errorCode === "run_not_found") hint = "Check the run id, or go back to the runs list.";
  if (facts.errorCode === "store_unavailable")
    hint = "oah-api cannot reach its database; it answers again once the database is back.";
  if (facts.httpStatus === 401) hint = "Sign in again.";
  return (
    <div className="state state-error" role="alert">
      <p>
        <strong>Could not load {what}.</strong> {facts.message}
        {facts.errorCode ? (
          <>
            {" "}
            <code>{facts.errorCode}</code>
          </>
        ) : null}
      </p>
      <p className="muted">{hint}</p>
      {onRetry ? (
        <button type="button" className="btn" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}
