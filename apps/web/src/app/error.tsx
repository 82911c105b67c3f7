"use client";

export default function ErrorPage({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <div className="state state-error" role="alert">
      <p>
        <strong>The console hit an error.</strong> {error.message}
      </p>
      <p className="muted">Try again; if it keeps happening, the console's log has the details.</p>
      <button type="button" className="btn" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
