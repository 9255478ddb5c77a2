import { PAGE_SIZE } from '@model-relay/contract';
import { Button, Card, Empty, Input, Table, type TableProps } from 'antd';
import { useMemo, useState, type ReactNode } from 'react';
import { toTableColumns, type ListColumn } from './columns';
import type { PagedList } from './use-list-query';

export interface ListTableProps<T> {
  title: ReactNode;
  list: PagedList<T>;
  columns: ListColumn<T>[];
  /** The search box (the search itself is the list's). Controlled when `value` is given. */
  search?: { placeholder: string; value?: string; onChange?: (value: string) => void };
  /** Filters shown instead of (or besides) a search box, e.g. the log screen's form. */
  filters?: ReactNode;
  /** Shown above the table (notices, progress). */
  notice?: ReactNode;
  /** Buttons under the table: add, sort choice, bulk actions. */
  footer?: ReactNode;
  /** What an empty list says, and the button that gets the user going. */
  empty?: { description: string; action?: { label: string; onClick: () => void } };
  rowKey?: string;
  /** Width from which the table scrolls sideways. */
  scrollX?: number;
  className?: string;
  /** Rows that open to show more (the log screen's request detail). */
  expandable?: TableProps<T>['expandable'];
}

/**
 * The one list screen shell (docs/adding.md, a console screen): a card with a search box, the table with columns as data and
 * whole-cell header sorting of the loaded rows, load-more paging (useListQuery), an empty state with a call to
 * action, and a footer for the screen's buttons.
 */
export function ListTable<T extends object>({ title, list, columns, search, filters, notice, footer, empty, rowKey = 'id', scrollX, className, expandable }: ListTableProps<T>) {
  const [ownKeyword, setOwnKeyword] = useState('');
  const keyword = search?.value ?? ownKeyword;
  const setKeyword = search?.onChange ?? setOwnKeyword;
  const tableColumns = useMemo(() => toTableColumns(columns), [columns]);
  const emptyText =
    empty && !list.loading ? (
      <Empty description={list.searching ? '没有找到匹配的结果' : empty.description}>
        {!list.searching && empty.action && (
          <Button type="primary" onClick={empty.action.onClick}>
            {empty.action.label}
          </Button>
        )}
      </Empty>
    ) : undefined;

  return (
    <Card className={className ?? 'page-card'} title={title}>
      {notice}
      {search && (
        <Input.Search
          placeholder={search.placeholder}
          value={keyword}
          onChange={(e) => setKeyword(e.target.value)}
          onSearch={(value) => void list.search(value)}
          allowClear
          style={{ marginBottom: 16 }}
        />
      )}
      {filters}
      <Table<T>
        rowKey={rowKey}
        columns={tableColumns}
        dataSource={list.rows}
        loading={list.loading}
        scroll={scrollX ? { x: scrollX } : undefined}
        locale={emptyText ? { emptyText } : undefined}
        pagination={{ current: list.activePage, pageSize: PAGE_SIZE, total: list.total, showSizeChanger: false, onChange: list.onPageChange }}
        footer={footer ? () => footer : undefined}
        expandable={expandable}
      />
    </Card>
  );
}
