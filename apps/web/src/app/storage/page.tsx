import type { Metadata } from "next";
import { Suspense } from "react";
import { StorageView } from "@/components/StorageView";

export const metadata: Metadata = { title: "Storage" };

export default function StoragePage() {
  return (
    <Suspense fallback={<div className="state">Loading…</div>}>
      <StorageView />
    </Suspense>
  );
}
