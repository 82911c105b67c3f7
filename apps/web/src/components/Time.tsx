import { fullTime, shortTime } from "@/lib/format";

/** A time as the table shows it; the full date and time in its tooltip. */
export function Time({ value }: { value: string | number | null | undefined }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  const iso = new Date(value).toISOString();
  return (
    <time dateTime={iso} title={`${fullTime(value)} (${iso})`}>
      {shortTime(value)}
    </time>
  );
}
