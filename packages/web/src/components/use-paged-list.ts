import { PAGE_SIZE } from '@model-relay/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../lib/api';

/**
 * The paging of every list screen (spec section 4, "Lists"): server pages of PAGE_SIZE rows; page 0 replaces
 * the list and later pages append; the next server page is loaded when the user reaches the last local
 * page; the table paginates locally. A search replaces the list with the search results.
 */
export function usePagedList<T>(listUrl: (page: number) => string, searchUrl: (keyword: string) => string) {
  const [rows, setRows] = useState<T[]>([]);
  const [loading, setLoading] = useState(false);
  const [activePage, setActivePage] = useState(1);
  const [searching, setSearching] = useState(false);
  const loadedPages = useRef(0);
  const exhausted = useRef(false);
  /** Bumped by every page-0 load and search: an answer to an older request is dropped, never mixed in. */
  const generation = useRef(0);
  /** The later page being fetched, so two quick page changes do not fetch (and append) it twice. */
  const fetching = useRef<number | undefined>(undefined);

  const loadPage = useCallback(
    async (page: number) => {
      if (page === 0) generation.current++;
      else if (fetching.current === page) return;
      const mine = generation.current;
      if (page > 0) fetching.current = page;
      setLoading(true);
      try {
        const res = await api<T[]>(listUrl(page));
        if (mine !== generation.current || !res.success) return;
        const data = res.data ?? [];
        exhausted.current = data.length < PAGE_SIZE;
        loadedPages.current = page + 1;
        setRows((current) => (page === 0 ? data : [...current, ...data]));
      } catch {
        /* shown by the request client */
      } finally {
        if (fetching.current === page) fetching.current = undefined;
        if (mine === generation.current) setLoading(false);
      }
    },
    [listUrl],
  );

  const reload = useCallback(async () => {
    setSearching(false);
    setActivePage(1);
    await loadPage(0);
  }, [loadPage]);

  // A new list URL (a filter or sort changed) starts over at the first page, out of search mode.
  useEffect(() => {
    setSearching(false);
    setActivePage(1);
    void loadPage(0);
  }, [loadPage]);

  const onPageChange = useCallback(
    (page: number) => {
      setActivePage(page);
      const localPages = Math.ceil(rows.length / PAGE_SIZE);
      if (!searching && page >= localPages && !exhausted.current) void loadPage(loadedPages.current);
    },
    [rows.length, searching, loadPage],
  );

  const search = useCallback(
    async (keyword: string) => {
      const trimmed = keyword.trim();
      if (!trimmed) return reload();
      const mine = ++generation.current;
      setLoading(true);
      try {
        const res = await api<T[]>(searchUrl(trimmed));
        if (mine !== generation.current) return;
        if (res.success) {
          setRows(res.data ?? []);
          setSearching(true);
          setActivePage(1);
        }
      } catch {
        /* shown by the request client */
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [searchUrl, reload],
  );

  /** Total shown to the paginator: one extra page while more may exist on the server. */
  const total = rows.length + (searching || exhausted.current ? 0 : PAGE_SIZE);
  return { rows, setRows, loading, activePage, onPageChange, search, reload, total };
}
