import type { Metadata } from "next";
import { DeadLettersView } from "@/components/dead-letters/DeadLettersView";

export const metadata: Metadata = { title: "Dead letters" };

export default function DeadLettersPage() {
  return <DeadLettersView />;
}
