import { PAGE_SIZE } from '@model-relay/contract';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiData } from '../../lib/api';
import { mockApi, renderWith } from '../../test-support';
import { compareBy, type ListColumn } from './columns';
import { ListTable } from './list-table';
import { useListQuery } from './use-list-query';

interface Fruit {
  id: number;
  name: string;
  weight: number;
}

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

const columns: ListColumn<Fruit>[] = [
  { key: 'id', title: 'ID', dataIndex: 'id', sort: 'id' },
  { key: 'name', title: '名称', dataIndex: 'name', sort: 'name' },
  { key: 'weight', title: '重量', dataIndex: 'weight', sort: (a, b) => a.weight - b.weight, render: (w: number) => `${w} g` },
  { key: 'note', title: '备注', render: () => '-' },
];

function Fruits({ onAdd = () => undefined }: { onAdd?: () => void }) {
  const list = useListQuery<Fruit>({
    key: ['fruits'],
    fetchPage: (page) => apiData<Fruit[]>(`/api/fruit/?p=${page}`),
    search: { key: (keyword) => ['fruits', 'search', keyword], fetch: (keyword) => apiData<Fruit[]>(`/api/fruit/search?keyword=${keyword}`) },
  });
  return (
    <ListTable<Fruit>
      title="水果"
      list={list}
      columns={columns}
      search={{ placeholder: '搜索水果 ...' }}
      empty={{ description: '还没有水果', action: { label: '添加水果', onClick: onAdd } }}
      footer={<button type="button">底部按钮</button>}
    />
  );
}

const fruits = (count: number, from = 1): Fruit[] =>
  Array.from({ length: count }, (_, i) => ({ id: from + i, name: `fruit-${String.fromCharCode(122 - ((from + i) % 26))}`, weight: ((from + i) * 37) % 100 }));

function serve(all: Fruit[], search: Fruit[] = []) {
  return mockApi({
    'GET /api/fruit/': (_body, url) => {
      const page = Number(new URL(url, 'http://x').searchParams.get('p'));
      return { success: true, message: '', data: all.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE) };
    },
    'GET /api/fruit/search': () => ({ success: true, message: '', data: search }),
  });
}

const header = (label: string) => screen.getAllByRole('columnheader').find((th) => th.textContent?.startsWith(label)) as HTMLElement;
const firstColumn = () => screen.getAllByRole('row').slice(1).map((row) => row.querySelector('td')?.textContent);

describe('ListTable', () => {
  it('renders the columns given as data, with the title and the footer', async () => {
    serve(fruits(3));
    renderWith(<Fruits />);
    await screen.findByText('fruit-y');
    expect(screen.getByText('水果')).toBeTruthy();
    expect(screen.getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['ID', '名称', '重量', '备注']);
    expect(screen.getByText('37 g')).toBeTruthy();
    expect(screen.getByRole('button', { name: '底部按钮' })).toBeTruthy();
  });

  it('the whole header cell sorts the loaded rows with the antd indicator, a second click reverses, no request; unsortable columns do not', async () => {
    const calls = serve(fruits(5));
    renderWith(<Fruits />);
    await screen.findByText('fruit-y');
    const before = calls.length;
    expect(header('备注').getAttribute('aria-sort')).toBeNull();
    expect(header('备注').querySelector('.ant-table-column-sorter')).toBeNull();
    expect(header('重量').querySelector('.ant-table-column-sorter')).toBeTruthy();

    fireEvent.click(header('重量'));
    const weights = () => screen.getAllByRole('row').slice(1).map((row) => row.querySelectorAll('td')[2]?.textContent);
    expect(weights()).toEqual(['11 g', '37 g', '48 g', '74 g', '85 g']);
    expect(header('重量').getAttribute('aria-sort')).toBe('ascending');
    expect(header('重量').querySelector('.ant-table-column-sorter-up.active')).toBeTruthy();
    fireEvent.click(header('重量'));
    expect(weights()).toEqual(['85 g', '74 g', '48 g', '37 g', '11 g']);
    expect(header('重量').getAttribute('aria-sort')).toBe('descending');
    expect(header('重量').querySelector('.ant-table-column-sorter-down.active')).toBeTruthy();

    fireEvent.click(header('名称'));
    expect(screen.getAllByRole('row').slice(1).map((row) => row.querySelectorAll('td')[1]?.textContent)).toEqual(['fruit-u', 'fruit-v', 'fruit-w', 'fruit-x', 'fruit-y']);
    expect(calls.length).toBe(before);
  });

  it('sorts every loaded row, not only the page on screen', async () => {
    serve(fruits(15));
    renderWith(<Fruits />);
    await screen.findByText('fruit-y');
    fireEvent.click(within(screen.getByRole('list')).getByText('2'));
    await screen.findByText('fruit-n');
    fireEvent.click(header('ID'));
    fireEvent.click(header('ID'));
    // Descending over all 15 rows: the page shows 15..6 although 15 was loaded second.
    fireEvent.click(within(screen.getByRole('list')).getByText('1'));
    await waitFor(() => expect(firstColumn()[0]).toBe('15'));
  });

  // covers S9-CONST-08
  it('pages by the shared PAGE_SIZE: a full page offers one more; reaching it loads and appends the next server page', async () => {
    const calls = serve(fruits(13));
    renderWith(<Fruits />);
    await screen.findByText('fruit-y');
    expect(firstColumn()).toHaveLength(PAGE_SIZE);
    const pager = screen.getByRole('list');
    expect(within(pager).getByText('2')).toBeTruthy();
    fireEvent.click(within(pager).getByText('2'));
    await waitFor(() => expect(firstColumn()).toEqual(['11', '12', '13']));
    expect(calls.map((c) => c.url)).toEqual(['/api/fruit/?p=0', '/api/fruit/?p=1']);
    expect(within(screen.getByRole('list')).queryByText('3')).toBeNull();
  });

  it('an empty list shows its call to action; a search with no result says so instead', async () => {
    const onAdd = vi.fn();
    serve([]);
    renderWith(<Fruits onAdd={onAdd} />);
    const empty = await screen.findByText('还没有水果');
    fireEvent.click(within(empty.closest('.ant-empty') as HTMLElement).getByRole('button', { name: '添加水果' }));
    expect(onAdd).toHaveBeenCalledTimes(1);
    const box = screen.getByPlaceholderText('搜索水果 ...');
    fireEvent.change(box, { target: { value: 'kiwi' } });
    fireEvent.keyDown(box, { key: 'Enter', code: 'Enter', keyCode: 13 });
    expect(await screen.findByText('没有找到匹配的结果')).toBeTruthy();
    expect(screen.queryByRole('button', { name: '添加水果' })).toBeNull();
  });

  it('the search box replaces the rows with the results; clearing it goes back to the list', async () => {
    const calls = serve(fruits(3), [{ id: 99, name: 'kiwi', weight: 5 }]);
    renderWith(<Fruits />);
    await screen.findByText('fruit-y');
    const box = screen.getByPlaceholderText('搜索水果 ...');
    const enter = () => {
      fireEvent.keyDown(box, { key: 'Enter', code: 'Enter', keyCode: 13 });
      fireEvent.keyUp(box, { key: 'Enter', code: 'Enter', keyCode: 13 });
    };
    fireEvent.change(box, { target: { value: '  kiwi ' } });
    enter();
    await screen.findByText('kiwi');
    expect(screen.queryByText('fruit-y')).toBeNull();
    expect(calls.at(-1)?.url).toBe('/api/fruit/search?keyword=kiwi');
    fireEvent.change(box, { target: { value: '' } });
    enter();
    await screen.findByText('fruit-y');
    expect(calls.at(-1)?.url).toBe('/api/fruit/?p=0');
  });
});

describe('compareBy', () => {
  // covers S2-USERS-11, S2-USERS-12
  it('compares numbers numerically and anything else as text, without touching the rows', () => {
    const rows = [
      { id: 2, name: 'bob', quota: 50 },
      { id: 1, name: 'amy', quota: 300 },
      { id: 3, name: 'cat', quota: 10 },
    ];
    expect([...rows].sort(compareBy('quota')).map((r) => r.id)).toEqual([3, 2, 1]);
    expect([...rows].sort(compareBy('name')).map((r) => r.name)).toEqual(['amy', 'bob', 'cat']);
    expect(rows.map((r) => r.id)).toEqual([2, 1, 3]);
  });
});
