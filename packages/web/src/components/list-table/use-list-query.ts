import { PAGE_SIZE } from '@model-relay/contract';
import { hashKey, useInfiniteQuery, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, useState } from 'react';

/** Where a list screen's rows come from: one file per endpoint provides these (src/api/<resource>/). */
export interface ListSource<T> {
  /** The list's query key, filters and sort order included: a new key starts over at the first page. */
  key: QueryKey;
  /** One server page (0-based, PAGE_SIZE rows; a shorter page is the last). */
  fetchPage: (page: number) => Promise<T[]>;
  /** The search endpoint, when the screen has a search box. */
  search?: { key: (keyword: string) => QueryKey; fetch: (keyword: string) => Promise<T[]> };
}

/** The state a ListTable shows and the actions it offers. */
export interface PagedList<T> {
  /** Every loaded row (all server pages, or the search results); the table sorts and pages them locally. */
  rows: T[];
  loading: boolean;
  /** 1-based page of the table. */
  activePage: number;
  onPageChange: (page: number) => void;
  /** Replaces the list with the results for the trimmed keyword; an empty keyword goes back to the list. */
  search: (keyword: string) => Promise<void>;
  /** Back to server page 0, replacing the loaded rows. */
  reload: () => Promise<void>;
  /** Rows the paginator counts: one extra page while the server may have more. */
  total: number;
  searching: boolean;
}

const OFF: QueryKey = ['list-search-off'];

/**
 * The paging of every list screen (docs/console.md §4, "Lists") on react-query: server pages of PAGE_SIZE rows;
 * page 0 replaces the list and later pages append; the next server page is loaded when the user reaches the
 * last local page; the table paginates locally. A search replaces the list with the search results.
 */
export function useListQuery<T>(source: ListSource<T>): PagedList<T> {
  const client = useQueryClient();
  const [activePage, setActivePage] = useState(1);
  const [keyword, setKeyword] = useState<string | undefined>();
  const [searchPending, setSearchPending] = useState(false);
  /** Bumped by every search and reload: a search answer that arrives after a newer one is dropped. */
  const generation = useRef(0);
  const listHash = hashKey(source.key);
  const [shownHash, setShownHash] = useState(listHash);
  // A new list key (a filter or the sort order changed): back to the first page, out of search mode.
  if (shownHash !== listHash) {
    setShownHash(listHash);
    setActivePage(1);
    setKeyword(undefined);
  }

  const list = useInfiniteQuery({
    queryKey: source.key,
    queryFn: ({ pageParam }) => source.fetchPage(pageParam),
    initialPageParam: 0,
    getNextPageParam: (last, all) => (last.length < PAGE_SIZE ? undefined : all.length),
  });
  const searching = keyword !== undefined && source.search !== undefined;
  const searchKey = searching ? source.search!.key(keyword!) : OFF;
  // Searches run when asked (every Enter sends one), never on their own.
  const results = useQuery({ queryKey: searchKey, queryFn: () => source.search!.fetch(keyword!), enabled: false });

  const listRows = useMemo(() => list.data?.pages.flat() ?? [], [list.data]);
  const rows = searching ? (results.data ?? []) : listRows;

  const { hasNextPage, fetchNextPage } = list;
  const onPageChange = useCallback(
    (page: number) => {
      setActivePage(page);
      const localPages = Math.ceil(listRows.length / PAGE_SIZE);
      // cancelRefetch false: a second change while the page is on its way does not fetch (and append) it twice.
      if (!searching && page >= localPages && hasNextPage) void fetchNextPage({ cancelRefetch: false });
    },
    [listRows.length, searching, hasNextPage, fetchNextPage],
  );

  const reload = useCallback(async () => {
    generation.current++;
    setSearchPending(false);
    setKeyword(undefined);
    setActivePage(1);
    // Reset, not refetch: only page 0 is loaded again, and an answer still on its way for the old list is dropped.
    await client.resetQueries({ queryKey: source.key, exact: true });
  }, [client, source.key]);

  const searchFor = source.search;
  const search = useCallback(
    async (text: string) => {
      const trimmed = text.trim();
      if (!trimmed || !searchFor) return reload();
      const mine = ++generation.current;
      setSearchPending(true);
      try {
        await client.fetchQuery({ queryKey: searchFor.key(trimmed), queryFn: () => searchFor.fetch(trimmed), staleTime: 0 });
        // The rows on screen stay until the results are there, then the results replace them.
        if (mine === generation.current) {
          setKeyword(trimmed);
          setActivePage(1);
        }
      } catch {
        /* shown by the request client */
      } finally {
        if (mine === generation.current) setSearchPending(false);
      }
    },
    [client, searchFor, reload],
  );

  const total = rows.length + (searching || !hasNextPage ? 0 : PAGE_SIZE);
  return { rows, loading: list.isFetching || results.isFetching || searchPending, activePage, onPageChange, search, reload, total, searching };
}
