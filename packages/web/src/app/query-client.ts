import { QueryClient } from '@tanstack/react-query';

/**
 * The console's react-query client. No automatic retries: the request client already shows every failure as a
 * toast, and a retry would show it again. No refetch on window focus: lists page on request only (docs/console.md §4).
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
