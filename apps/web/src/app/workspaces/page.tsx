import type { Metadata } from "next";
import { WorkspacesView } from "@/components/workspaces/WorkspacesView";

export const metadata: Metadata = { title: "Workspaces" };

export default function WorkspacesPage() {
  return <WorkspacesView />;
}
