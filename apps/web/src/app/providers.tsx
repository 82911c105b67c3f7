"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { isUnauthorized, makeTrpcClient, TRPCProvider } from "@/lib/trpc";

/**
 * A session the API no longer accepts sends the operator back to the sign-in page. On that page
 * there is no session yet: a call refused there (who is signed in, asked by the top bar) must not
 * reload it under the operator's typing.
 */
function toSignIn(error: unknown) {
  if (!isUnauthorized(error) || typeof window === "undefined") return;
  if (window.location.pathname === "/sign-in") return;
  const next = `${window.location.pathname}${window.location.search}`;
  window.location.assign(`/sign-in?error=expired&next=${encodeURIComponent(next)}`);
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({ onError: toSignIn }),
        mutationCache: new MutationCache({ onError: toSignIn }),
        defaultOptions: {
          queries: {
            staleTime: 1_000,
            retry: 1,
            refetchOnWindowFocus: true,
            // Keep refreshing while the tab is in the background: an operator glances back at it.
            refetchIntervalInBackground: true,
          },
        },
      }),
  );
  const [trpcClient] = useState(makeTrpcClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
