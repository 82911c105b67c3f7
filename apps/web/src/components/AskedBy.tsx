/**
 * Who asked for an action: the caller's token's name, and beside it, as the caller's word
 * only, the name it gave as who asks (a `requestedBy` it sent), if any.
 */
export function AskedBy({ by, claimed }: { by: string | null; claimed: string | null | undefined }) {
  return (
    <>
      <span className="mono">{by ?? "—"}</span>
      {claimed ? (
        <span className="subtle" title={`the name ${by ?? "the caller"} gave as who asks; not checked`}>
          {" "}
          (claimed: <span className="mono">{claimed}</span>)
        </span>
      ) : null}
    </>
  );
}
