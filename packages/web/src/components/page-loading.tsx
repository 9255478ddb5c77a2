import { Spin } from 'antd';

/** The lazy-load fallback of docs/console.md §1: "loading {page} ...". */
export function PageLoading({ page }: { page: string }) {
  return (
    <div style={{ padding: 48, textAlign: 'center' }}>
      <Spin />
      <div style={{ marginTop: 12 }}>正在加载{page}...</div>
    </div>
  );
}
