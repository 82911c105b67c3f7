import Link from "next/link";

/** A run id, monospace, linking to the run's page. */
export function RunId({ id, short = false }: { id: string; short?: boolean }) {
  return (
    <Link href={`/runs/${id}`} className="mono run-id" title={id}>
      {short ? `…${id.slice(-10)}` : id}
    </Link>
  );
}
