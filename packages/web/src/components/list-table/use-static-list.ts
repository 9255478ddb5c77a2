import { useCallback, useMemo, useState } from 'react';
import type { PagedList } from './use-list-query';

/**
 * A PagedList over rows that are all loaded at once (a report's top-N tables), so they use the same ListTable
 * as every list screen: local paging and sorting, no server pages, no search.
 */
export function useStaticList<T>(rows: T[] | undefined, loading: boolean): PagedList<T> {
  const [activePage, setActivePage] = useState(1);
  const list = useMemo(() => rows ?? [], [rows]);
  const [shown, setShown] = useState(list);
  // New rows (another range or filter): back to the first page.
  if (shown !== list) {
    setShown(list);
    setActivePage(1);
  }
  const noop = useCallback(async () => {}, []);
  return { rows: list, loading, activePage, onPageChange: setActivePage, search: noop, reload: noop, total: list.length, searching: false };
}
