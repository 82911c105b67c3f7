import type { Metadata } from "next";
import { RunDetail } from "@/components/run-detail/RunDetail";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ runId: string }>;
}): Promise<Metadata> {
  const { runId } = await params;
  return { title: runId };
}

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return <RunDetail runId={decodeURIComponent(runId)} />;
}
