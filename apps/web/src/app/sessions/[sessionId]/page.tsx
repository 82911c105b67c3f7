import type { Metadata } from "next";
import { SessionInspector } from "@/components/sessions/SessionInspector";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ sessionId: string }>;
}): Promise<Metadata> {
  const { sessionId } = await params;
  return { title: `session ${decodeURIComponent(sessionId)}` };
}

export default async function SessionPage({ params }: { params: Promise<{ sessionId: string }> }) {
  const { sessionId } = await params;
  return <SessionInspector sessionId={decodeURIComponent(sessionId)} />;
}
