import Link from "next/link";

export default function NotFound() {
  return (
    <div className="state">
      <p>
        <strong>Nothing here.</strong>
      </p>
      <p>
        <Link href="/storage">Go to the runs</Link>
      </p>
    </div>
  );
}
