import { MenuOutlined } from '@ant-design/icons';
import { Button, Drawer, Dropdown, Grid, Layout, Menu, theme } from 'antd';
import { useMemo, useState, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api } from '../lib/api';
import { DEFAULT_LOGO, DEFAULT_SYSTEM_NAME, isAdmin, useStatus, useUser } from '../lib/session';
import { forgetUserQuietly } from '../lib/storage';
import { toast } from '../lib/toast';
import { ROUTES } from './routes';

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
        .sort((a, b) => a.menu!.order - b.menu!.order)
        .map((r) => ({ key: r.menu!.key, label: <Link to={r.menu!.key}>{r.menu!.label}</Link> })),
    [user, status?.chat_link],
  );
  const selected = items.map((i) => i.key).filter((k) => (k === '/' ? location.pathname === '/' : location.pathname.startsWith(k)));

  const logout = async () => {
    try {
      await api('/api/user/logout');
    } finally {
      forgetUserQuietly();
      navigate('/login', { replace: true });
      toast.success('注销成功！');
    }
  };

  const account = user ? (
    <Dropdown trigger={['click']} menu={{ items: [{ key: 'logout', label: '注销', onClick: () => void logout() }] }}>
      <Button type="text" style={{ color: 'inherit' }} aria-label="用户菜单">
        {user.display_name || user.username}
      </Button>
    </Dropdown>
  ) : (
    <span style={{ display: 'flex', gap: 8 }}>
      <Button onClick={() => navigate('/login')}>登录</Button>
      <Button type="primary" onClick={() => navigate('/register')}>
        注册
      </Button>
    </span>
  );

  const systemName = status?.system_name || DEFAULT_SYSTEM_NAME;
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
