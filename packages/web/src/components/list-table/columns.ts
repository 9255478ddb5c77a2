import type { ColumnType } from 'antd/es/table';

/**
 * A column as data. `sort` makes the whole header cell sort the loaded rows locally, with antd's indicator:
 * a field name (numbers numerically, anything else as text) or a compare function. A second click reverses.
 */
export type ListColumn<T> = Omit<ColumnType<T>, 'sorter' | 'sortDirections' | 'sortOrder'> & {
  key: string;
  sort?: keyof T | ((a: T, b: T) => number);
};

/** Compares two rows by one field: numbers numerically, everything else as text. */
export function compareBy<T>(field: keyof T): (a: T, b: T) => number {
  return (a, b) => {
    const x = a[field];
    const y = b[field];
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x ?? '').localeCompare(String(y ?? ''));
  };
}

// Ascending, then descending, then ascending again: antd's sequence without the third "unsorted" state.
const TOGGLE: ColumnType<unknown>['sortDirections'] = ['ascend', 'descend', 'ascend'];

/** antd columns for ListColumn data. */
export function toTableColumns<T>(columns: ListColumn<T>[]): ColumnType<T>[] {
  return columns.map(({ sort, ...column }) => {
    if (sort === undefined) return column;
    const sorter = typeof sort === 'function' ? sort : compareBy<T>(sort);
    return { ...column, sorter, sortDirections: TOGGLE };
  });
}
