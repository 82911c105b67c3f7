import { json } from "@/lib/format";

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  if (value === null || value === undefined) return <p className="muted">No {label.toLowerCase()}.</p>;
  return (
    <pre className="json" data-label={label}>
      {json(value)}
    </pre>
  );
}
