import type { Metadata } from "next";
import { BulkJobsView } from "@/components/bulk/BulkJobsView";

export const metadata: Metadata = { title: "Bulk actions" };

export default function BulkActionsPage() {
  return <BulkJobsView />;
}
