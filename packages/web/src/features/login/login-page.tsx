import { GithubOutlined, WechatOutlined } from '@ant-design/icons';
import { Role } from '@model-relay/contract';
import { Alert, Button, Card, Divider, Form, Image, Input, Modal, Space } from 'antd';
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { signInWithWechat } from '../../api/oauth/sign-in-with-wechat';
import { login } from '../../api/users/login';
import { openAuthorization } from '../../lib/oauth';
import { useStatus } from '../../lib/session';
import { refreshStoredUser, setStoredUser } from '../../lib/storage';
import { toast } from '../../lib/toast';

/** The default super admin credentials; logging in with them asks for a new password at once. */
const DEFAULT_ROOT = { username: 'root', password: '123456' };

export default function LoginPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const location = useLocation();
  const status = useStatus();
  const [loading, setLoading] = useState(false);
  const [wechatOpen, setWechatOpen] = useState(false);
  const [wechatCode, setWechatCode] = useState('');
  // A logout or an expired session forgot the user quietly; let the top bar catch up now.
  useEffect(refreshStoredUser, []);
  const from = (location.state as { from?: { pathname: string; search?: string } } | null)?.from;

  const submit = async (values: { username: string; password: string }) => {
    setLoading(true);
    try {
      const res = await login(values);
      if (!res.success || !res.data) return;
      setStoredUser(res.data);
      toast.success('登录成功！');
      if (values.username === DEFAULT_ROOT.username && values.password === DEFAULT_ROOT.password) {
        navigate('/user/edit');
        toast.notice('请立刻修改默认密码！', '你正在使用默认的 root 密码登录，请立刻修改默认密码！');
        return;
      }
      // Ordinary users land on their usage (issue 11); admins keep the key list of docs/console.md §2.
      navigate(from ? `${from.pathname}${from.search ?? ''}` : res.data.role >= Role.Admin ? '/token' : '/dashboard');
    } catch {
      /* shown by the request client */
    } finally {
      setLoading(false);
    }
  };

  // After a WeChat login the user goes to / (docs/console.md §2).
  const wechatLogin = async () => {
    if (!wechatCode.trim()) return;
    try {
      const res = await signInWithWechat(wechatCode.trim());
      if (res.success && res.data) {
        setStoredUser(res.data);
        toast.success('登录成功！');
        setWechatOpen(false);
        navigate('/');
      }
    } catch {
      /* shown by the request client */
    }
  };


  return (
    <Card className="auth-card" title="用户登录">
      {params.get('expired') === 'true' && <Alert type="warning" showIcon style={{ marginBottom: 16 }} title="未登录或登录已过期，请重新登录！" />}
      <Form layout="vertical" onFinish={submit} autoComplete="on">
        <Form.Item name="username" rules={[{ required: true, message: '请输入用户名或邮箱' }]}>
          <Input placeholder="用户名或邮箱" autoComplete="username" />
        </Form.Item>
        <Form.Item name="password" rules={[{ required: true, message: '请输入密码' }]}>
          <Input.Password placeholder="密码" autoComplete="current-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={loading}>
          登录
        </Button>
      </Form>
      <Space style={{ marginTop: 16, width: '100%', justifyContent: 'space-between' }}>
        <span>
          忘记密码？<Link to="/reset">点击重置</Link>
        </span>
        <span>
          没有账户？<Link to="/register">点击注册</Link>
        </span>
      </Space>
      {(status?.github_oauth || status?.wechat_login || status?.lark_client_id) && (
        <>
          <Divider>第三方登录</Divider>
          <Space style={{ width: '100%', justifyContent: 'center' }}>
            {status?.github_oauth && <Button shape="circle" icon={<GithubOutlined />} aria-label="GitHub 登录" onClick={() => void openAuthorization('github', status).catch(() => undefined)} />}
            {status?.wechat_login && <Button shape="circle" icon={<WechatOutlined />} aria-label="微信登录" onClick={() => setWechatOpen(true)} />}
            {status?.lark_client_id && (
              <Button shape="circle" aria-label="飞书登录" onClick={() => void openAuthorization('lark', status).catch(() => undefined)}>
                飞
              </Button>
            )}
          </Space>
        </>
      )}
      <Modal open={wechatOpen} title="微信扫码登录" onCancel={() => setWechatOpen(false)} onOk={() => void wechatLogin()} okText="登录">
        {status?.wechat_qrcode && <Image src={status.wechat_qrcode} alt="微信二维码" preview={false} />}
        <p>微信扫码关注公众号，输入「验证码」获取验证码（三分钟内有效）</p>
        <Input placeholder="验证码" value={wechatCode} onChange={(e) => setWechatCode(e.target.value)} onPressEnter={() => void wechatLogin()} />
      </Modal>
    </Card>
  );
}
