import type { InfiniteData, QueryClient, QueryKey } from '@tanstack/react-query';

type Cached<T> = InfiniteData<T[], number> | T[] | unknown;

function isInfinite<T>(data: Cached<T>): data is InfiniteData<T[], number> {
  return typeof data === 'object' && data !== null && Array.isArray((data as InfiniteData<T[]>).pages);
}

/**
 * Applies a change to the rows of every cached list and search under `prefix` (paged lists keep their pages).
 * Used by row actions: the server answered with the row's new state, so the rows change in place, keeping the
 * user's page and sort, without reloading every page.
 */
export function updateCachedRows<T>(client: QueryClient, prefix: QueryKey, change: (rows: T[]) => T[]): void {
  client.setQueriesData<Cached<T>>({ queryKey: prefix }, (data: Cached<T>) => {
    if (isInfinite<T>(data)) return { ...data, pages: data.pages.map((page) => change(page)) };
    if (Array.isArray(data)) return change(data as T[]);
    return data;
  });
}

/** Replaces one row (matched by id) in every cached list under `prefix`. */
export function replaceCachedRow<T extends { id: number }>(client: QueryClient, prefix: QueryKey, id: number, next: (row: T) => T): void {
  updateCachedRows<T>(client, prefix, (rows) => rows.map((row) => (row.id === id ? next(row) : row)));
}

/**
 * A mutation invalidates its own list: everything cached under `prefix` is stale, so the next screen that shows
 * it loads it again. Lists on screen are not reloaded at once (their rows were already updated in place).
 */
export function invalidateList(client: QueryClient, prefix: QueryKey): Promise<void> {
  return client.invalidateQueries({ queryKey: prefix, refetchType: 'none' });
}
