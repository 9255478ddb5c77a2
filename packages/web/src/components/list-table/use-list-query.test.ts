import { act, renderHook, waitFor } from '@testing-library/react';
import { PAGE_SIZE } from '@model-relay/contract';
import { describe, expect, it } from 'vitest';
import { apiData } from '../../lib/api';
import { mockApi, queryWrapper } from '../../test-support';
import { useListQuery, type ListSource } from './use-list-query';


interface Row {
  id: number;
}

/** A server holding `count` rows with ids 1..count, served PAGE_SIZE at a time for ?p=N. */
function serverWith(count: number) {
  const all: Row[] = Array.from({ length: count }, (_, i) => ({ id: i + 1 }));
  return mockApi({
    'GET /api/token/': (_body, url) => {
      const page = Number(new URL(url, 'http://localhost').searchParams.get('p'));
      return { success: true, message: '', data: all.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE) };
    },
    'GET /api/token/search': () => ({ success: true, message: '', data: [{ id: 99 }] }),
  });
}

const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const source: ListSource<Row> = {
  key: ['rows', 'list'],
  fetchPage: (p) => apiData<Row[]>(`/api/token/?p=${p}`),
  search: { key: (keyword) => ['rows', 'search', keyword], fetch: (keyword) => apiData<Row[]>(`/api/token/search?keyword=${keyword}`) },
};

function mount() {
  return renderHook(() => useListQuery<Row>(source), { wrapper: queryWrapper() });
}

describe('useListQuery: the list paging of docs/console.md §4', () => {
  // covers S4-STATES-33
  it('loads page 0 on mount and a reload of page 0 replaces the list instead of appending', async () => {
    const calls = serverWith(25);
    const { result } = mount();
    await waitFor(() => expect(result.current.rows.map((r) => r.id)).toEqual(ids(1, 10)));
    expect(calls.map((c) => c.url)).toEqual(['/api/token/?p=0']);

    await act(async () => result.current.onPageChange(2));
    await waitFor(() => expect(result.current.rows).toHaveLength(20));

    await act(async () => result.current.reload());
    expect(calls.map((c) => c.url)).toEqual(['/api/token/?p=0', '/api/token/?p=1', '/api/token/?p=0']);
    expect(result.current.rows.map((r) => r.id)).toEqual(ids(1, 10));
    expect(result.current.activePage).toBe(1);
  });

  // covers S4-STATES-34, S4-STATES-35
  it('moving to the last local page loads the next server page and appends it, until the server has no more', async () => {
    const calls = serverWith(25);
    const { result } = mount();
    await waitFor(() => expect(result.current.rows).toHaveLength(10));
    // A full first page: the paginator offers one more page than is loaded.
    expect(result.current.total).toBe(20);

    await act(async () => result.current.onPageChange(2));
    await waitFor(() => expect(result.current.rows).toHaveLength(20));
    expect(calls.map((c) => c.url)).toEqual(['/api/token/?p=0', '/api/token/?p=1']);
    expect(result.current.rows.map((r) => r.id)).toEqual(ids(1, 20));
    expect(result.current.activePage).toBe(2);
    expect(result.current.total).toBe(30);

    // Page 2 is now the last local page: reaching it again fetches server page 2, which is short (5 rows).
    await act(async () => result.current.onPageChange(1));
    await act(async () => result.current.onPageChange(2));
    await waitFor(() => expect(result.current.rows).toHaveLength(25));
    expect(calls.map((c) => c.url)).toEqual(['/api/token/?p=0', '/api/token/?p=1', '/api/token/?p=2']);
    expect(result.current.rows.map((r) => r.id)).toEqual(ids(1, 25));
    // A short page means the server is exhausted: the total is the rows loaded and no further page is asked for.
    expect(result.current.total).toBe(25);
    await act(async () => result.current.onPageChange(3));
    expect(calls).toHaveLength(3);
    expect(result.current.rows).toHaveLength(25);
  });

  // covers S4-STATES-36
  it('paginates locally: moving between pages already loaded fetches nothing and keeps every loaded row', async () => {
    const calls = serverWith(40);
    const { result } = mount();
    await waitFor(() => expect(result.current.rows).toHaveLength(10));
    await act(async () => result.current.onPageChange(2));
    await waitFor(() => expect(result.current.rows).toHaveLength(20));
    expect(calls).toHaveLength(2);

    await act(async () => result.current.onPageChange(1));
    expect(result.current.activePage).toBe(1);
    expect(calls).toHaveLength(2);
    // The hook keeps all loaded rows; the table slices page N out of them (rows (N-1)*PAGE_SIZE .. N*PAGE_SIZE).
    expect(result.current.rows.map((r) => r.id)).toEqual(ids(1, 20));
  });

  // covers S4-STATES-36
  it('a search replaces the list with the results, which page locally with no server paging', async () => {
    const calls = serverWith(25);
    const { result } = mount();
    await waitFor(() => expect(result.current.rows).toHaveLength(10));
    await act(async () => result.current.search('x'));
    expect(result.current.rows).toEqual([{ id: 99 }]);
    expect(result.current.total).toBe(1);
    await act(async () => result.current.onPageChange(2));
    expect(calls.map((c) => c.url)).toEqual(['/api/token/?p=0', '/api/token/search?keyword=x']);

    // An empty search goes back to server page 0, replacing the results.
    await act(async () => result.current.search('  '));
    expect(calls.at(-1)?.url).toBe('/api/token/?p=0');
    expect(result.current.rows.map((r) => r.id)).toEqual(ids(1, 10));
  });

  it('an answer that arrives after a reload is dropped, and two quick page changes fetch the next page once', async () => {
    const urls: string[] = [];
    let releasePage1: () => void = () => undefined;
    const page1 = new Promise<void>((resolve) => (releasePage1 = resolve));
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      const url = String(input);
      urls.push(url);
      const page = Number(new URL(url, 'http://localhost').searchParams.get('p'));
      // The first answer for page 1 is held back until after the reload; its rows (ids from 1001) are told apart
      // from those of a later answer for page 1.
      const late = page === 1 && urls.filter((u) => u.endsWith('?p=1')).length === 1;
      if (late) await page1;
      const first = page * PAGE_SIZE + 1 + (late ? 1000 : 0);
      const data = Array.from({ length: PAGE_SIZE }, (_, i) => ({ id: first + i }));
      return new Response(JSON.stringify({ success: true, message: '', data }), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const { result } = mount();
    await waitFor(() => expect(result.current.rows).toHaveLength(10));
    act(() => result.current.onPageChange(2));
    act(() => result.current.onPageChange(2));
    await act(async () => result.current.reload());
    releasePage1();
    // Paging on after the reload asks for page 1 again. That answer comes after the late one, the same way: once its
    // rows are shown, the late page has had its chance to be appended to the fresh page 0, and was not.
    act(() => result.current.onPageChange(2));
    await waitFor(() => expect(result.current.rows.map((r) => r.id)).toEqual(ids(1, 20)));
    // Page 1 was asked for twice: once for the two quick changes, once after the reload.
    expect(urls.filter((u) => u.endsWith('?p=1'))).toHaveLength(2);
    expect(result.current.loading).toBe(false);
  });
});
