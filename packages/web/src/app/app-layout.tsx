import { MenuOutlined, WalletOutlined } from '@ant-design/icons';
import { Button, Drawer, Dropdown, Grid, Layout, Menu, Tooltip, theme } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { selfKey, useSelf } from '../api/users/get-self';
import { logout as endSession } from '../api/users/logout';
import { renderQuota } from '../lib/format';
import { DEFAULT_LOGO, DEFAULT_SYSTEM_NAME, isAdmin, useStatus, useUser } from '../lib/session';
import { forgetUserQuietly } from '../lib/storage';
import { toast } from '../lib/toast';
import { menuKeyOf, ROUTES } from './routes';

const { Header, Content, Footer } = Layout;

/** Top bar with the per-role menu (collapsing into a drawer on mobile), content, and footer. */
export function AppLayout({ children }: { children: ReactNode }) {
  const user = useUser();
  const status = useStatus();
  const navigate = useNavigate();
  const location = useLocation();
  const screens = Grid.useBreakpoint();
  const { token } = theme.useToken();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const mobile = !screens.md;

  const items = useMemo(
    () =>
      ROUTES.filter((r) => r.menu)
        .filter((r) => !r.menu!.admin || isAdmin(user))
        .filter((r) => !r.menu!.needsChatLink || Boolean(status?.chat_link))
        .filter((r) => !r.menu!.needsPricingPage || status?.pricing_page !== false || Boolean(user))
        .sort((a, b) => a.menu!.order - b.menu!.order)
        .map((r) => ({ key: r.menu!.key, label: <Link to={r.menu!.key}>{r.menu!.label}</Link> })),
    [user, status?.chat_link, status?.pricing_page],
  );
  // The browser tab carries the product's display name too (the SystemName setting), not the built-in one.
  const systemName = status?.system_name || DEFAULT_SYSTEM_NAME;
  useEffect(() => {
    document.title = systemName;
  }, [systemName]);
  const current = menuKeyOf(location.pathname);
  const selected = current && items.some((i) => i.key === current) ? [current] : [];
  // The user's own balance, usage and request count, visible on every screen (issue: they were shown nowhere).
  const self = useSelf(Boolean(user)).data;
  // Requests spend quota meanwhile: moving to another screen refreshes the balance once it is 10 s old.
  const client = useQueryClient();
  useEffect(() => {
    void client.refetchQueries({ queryKey: selfKey, type: 'active', stale: true }, { cancelRefetch: false });
  }, [client, location.pathname]);

  const logout = async () => {
    try {
      await endSession();
    } finally {
      forgetUserQuietly();
      navigate('/login', { replace: true });
      toast.success('注销成功！');
    }
  };

  const balance = self ? (
    <Tooltip title="账户剩余额度，点击充值">
      <Link to="/topup" aria-label="账户余额" style={{ display: 'inline-flex', alignItems: 'center', gap: 4, whiteSpace: 'nowrap' }}>
        <WalletOutlined />
        {renderQuota(self.quota)}
      </Link>
    </Tooltip>
  ) : null;
  const usage = self
    ? [
        {
          key: 'usage',
          disabled: true,
          label: (
            <div aria-label="账户统计" style={{ color: 'inherit', lineHeight: 1.8 }}>
              <div>剩余额度：{renderQuota(self.quota)}</div>
              <div>已用额度：{renderQuota(self.used_quota)}</div>
              <div>请求次数：{self.request_count.toLocaleString('en-US')}</div>
            </div>
          ),
        },
        { type: 'divider' as const },
      ]
    : [];
  const account = user ? (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 8 }}>
      {balance}
      <Dropdown
        trigger={['click']}
        menu={{
          items: [
            ...usage,
            { key: 'topup', label: '充值', onClick: () => navigate('/topup') },
            { key: 'setting', label: '个人设置', onClick: () => navigate('/setting') },
            { key: 'logout', label: '注销', onClick: () => void logout() },
          ],
        }}
      >
        <Button type="text" style={{ color: 'inherit' }} aria-label="用户菜单">
          {user.display_name || user.username}
        </Button>
      </Dropdown>
    </span>
  ) : (
    <span style={{ display: 'flex', gap: 8 }}>
      <Button onClick={() => navigate('/login')}>登录</Button>
      <Button type="primary" onClick={() => navigate('/register')}>
        注册
      </Button>
    </span>
  );

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Header style={{ display: 'flex', alignItems: 'center', gap: 16, background: token.colorBgContainer, borderBottom: `1px solid ${token.colorBorderSecondary}`, padding: '0 16px' }}>
        <Link to="/" style={{ display: 'flex', alignItems: 'center', gap: 8, color: 'inherit' }}>
          <img src={status?.logo || DEFAULT_LOGO} alt="logo" style={{ height: 32, width: 32 }} />
          <strong>{systemName}</strong>
        </Link>
        {mobile ? (
          <>
            <span style={{ flex: 1 }} />
            <Button aria-label="打开菜单" icon={<MenuOutlined />} onClick={() => setDrawerOpen(true)} />
            <Drawer open={drawerOpen} onClose={() => setDrawerOpen(false)} title={systemName} placement="right">
              <Menu mode="inline" items={items} selectedKeys={selected} onClick={() => setDrawerOpen(false)} />
              <div style={{ marginTop: 16 }}>{account}</div>
            </Drawer>
          </>
        ) : (
          <>
            <Menu mode="horizontal" items={items} selectedKeys={selected} style={{ flex: 1, borderBottom: 'none', minWidth: 0 }} />
            {account}
          </>
        )}
      </Header>
      <Content style={{ padding: mobile ? 12 : 24 }}>{children}</Content>
      <Footer style={{ textAlign: 'center' }}>
        {status?.footer_html ? (
          <div className="custom-footer" dangerouslySetInnerHTML={{ __html: status.footer_html }} />
        ) : (
          <span>
            {systemName} · 由 Model Relay 驱动 · 自托管的 AI 模型 API 网关
          </span>
        )}
      </Footer>
    </Layout>
  );
}
