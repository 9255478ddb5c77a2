import { Card, Tabs } from 'antd';
import { lazy, Suspense } from 'react';
import { useSearchParams } from 'react-router';
import { PageLoading } from '../../components/page-loading';
import { isAdmin, useUser } from '../../lib/session';
import { PersonalSettings } from './personal-settings';

const OperationSettings = lazy(() => import('./operation-settings'));
const SystemSettings = lazy(() => import('./system-settings'));
const OtherSettings = lazy(() => import('./other-settings'));

/**
 * /setting: personal settings for everyone; operation, system and other settings for admins only. `?tab=operation`
 * (or system, other) opens that tab, for links from other screens.
 */
export default function SettingsPage() {
  const user = useUser();
  const admin = isAdmin(user);
  const [params] = useSearchParams();
  const wrap = (node: React.ReactNode, page: string) => <Suspense fallback={<PageLoading page={page} />}>{node}</Suspense>;
  const items = [
    { key: 'personal', label: '个人设置', children: <PersonalSettings /> },
    ...(admin
      ? [
          { key: 'operation', label: '运营设置', children: wrap(<OperationSettings />, '运营设置') },
          { key: 'system', label: '系统设置', children: wrap(<SystemSettings />, '系统设置') },
          { key: 'other', label: '其他设置', children: wrap(<OtherSettings />, '其他设置') },
        ]
      : []),
  ];
  return (
    <Card className="page-card">
      <Tabs items={items} defaultActiveKey={items.find((item) => item.key === params.get('tab'))?.key} destroyOnHidden />
    </Card>
  );
}
