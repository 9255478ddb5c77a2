import { useMemo, useState, type ReactNode } from 'react';

/** Sorts rows by one field: numbers numerically, everything else as text; a new array. */
export function sortRows<T>(rows: T[], key: keyof T, descending: boolean): T[] {
  const sorted = [...rows].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x ?? '').localeCompare(String(y ?? ''));
  });
  return descending ? sorted.reverse() : sorted;
}

/**
 * Local header sorting of the list screens (spec section 2): a click on a header sorts the loaded rows
 * without a request; a second click on the same header reverses the order.
 */
export function useHeaderSort<T>(rows: T[]) {
  const [sort, setSort] = useState<{ key: keyof T; descending: boolean } | undefined>();
  const sorted = useMemo(() => (sort ? sortRows(rows, sort.key, sort.descending) : rows), [rows, sort]);
  const title = (label: string, key: keyof T): { title: ReactNode } => ({
    title: (
      <span role="button" style={{ cursor: 'pointer' }} onClick={() => setSort((s) => ({ key, descending: s?.key === key ? !s.descending : false }))}>
        {label}
        {sort?.key === key ? (sort.descending ? ' ▼' : ' ▲') : ''}
      </span>
    ),
  });
  return { rows: sorted, title };
}
