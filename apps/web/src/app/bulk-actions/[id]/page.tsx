import type { Metadata } from "next";
import { BulkJobView } from "@/components/bulk/BulkJobView";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  return { title: id };
}

export default async function BulkActionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <BulkJobView jobId={decodeURIComponent(id)} />;
}
