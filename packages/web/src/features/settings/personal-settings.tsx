import { GithubOutlined, WechatOutlined } from '@ant-design/icons';
import { Button, Card, Image, Input, Modal, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../lib/api';
import { copyText } from '../../lib/clipboard';
import { useStatus, useUser } from '../../lib/session';
import { setStoredUser } from '../../lib/storage';
import { toast } from '../../lib/toast';

/** Personal settings (spec section 2): profile, system token, invite link, account deletion, bindings. */
export function PersonalSettings() {
  const navigate = useNavigate();
  const user = useUser();
  const status = useStatus();
  const [systemToken, setSystemToken] = useState('');
  const [inviteLink, setInviteLink] = useState('');
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [confirmName, setConfirmName] = useState('');
  const [emailOpen, setEmailOpen] = useState(false);
  const [wechatOpen, setWechatOpen] = useState(false);
  const [wechatCode, setWechatCode] = useState('');
  const [email, setEmail] = useState('');
  const [emailCode, setEmailCode] = useState('');
  const [countdown, setCountdown] = useState(0);

  // The resend button counts down 30 seconds (spec section 4).
  useEffect(() => {
    if (countdown <= 0) return;
    const timer = setTimeout(() => setCountdown((c) => c - 1), 1000);
    return () => clearTimeout(timer);
  }, [countdown]);

  const generateToken = async () => {
    const res = await api<string>('/api/user/token');
    if (!res.success || !res.data) return;
    setSystemToken(res.data);
    if (await copyText(res.data)) toast.success('令牌已重置并已复制到剪贴板');
  };

  const copyInvite = async () => {
    const res = await api<string>('/api/user/aff');
    if (!res.success || !res.data) return;
    const link = `${window.location.origin}/register?aff=${res.data}`;
    setInviteLink(link);
    if (await copyText(link)) toast.success('邀请链接已复制到剪切板');
  };

  const deleteAccount = async () => {
    if (confirmName !== user?.username) {
      toast.error('请输入你的账户名以确认删除！');
      return;
    }
    const res = await api('/api/user/self', { method: 'DELETE' });
    if (!res.success) return;
    toast.success('账户已删除！');
    await api('/api/user/logout').catch(() => undefined);
    setStoredUser(undefined);
    navigate('/login');
  };

  const sendEmailCode = async () => {
    if (!email) return;
    const res = await api(`/api/verification?email=${encodeURIComponent(email)}`);
    if (res.success) {
      toast.success('验证码发送成功，请检查你的邮箱！');
      setCountdown(30);
    }
  };

  const bindEmail = async () => {
    if (!emailCode) return;
    const res = await api(`/api/oauth/email/bind?email=${encodeURIComponent(email)}&code=${encodeURIComponent(emailCode)}`);
    if (res.success) {
      toast.success('邮箱账户绑定成功！');
      setEmailOpen(false);
    }
  };

  const bindWechat = async () => {
    if (!wechatCode) return;
    const res = await api(`/api/oauth/wechat/bind?code=${encodeURIComponent(wechatCode)}`);
    if (res.success) {
      toast.success('微信账户绑定成功！');
      setWechatOpen(false);
    }
  };

  const bindGithub = async () => {
    const res = await api<string>('/api/oauth/state');
    if (res.success) window.open(`https://github.com/login/oauth/authorize?client_id=${status?.github_client_id}&state=${res.data}&scope=user:email`);
  };
  const bindLark = async () => {
    const res = await api<string>('/api/oauth/state');
    if (!res.success) return;
    const redirect = encodeURIComponent(`${window.location.origin}/oauth/lark`);
    window.open(`https://open.feishu.cn/open-apis/authen/v1/index?redirect_uri=${redirect}&app_id=${status?.lark_client_id}&state=${res.data}`);
  };

  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <Card title="通用设置" size="small">
        <Space wrap>
          <Button onClick={() => navigate('/user/edit')}>更新个人信息</Button>
          <Button onClick={() => void generateToken()}>生成系统访问令牌</Button>
          <Button onClick={() => void copyInvite()}>复制邀请链接</Button>
          <Button danger onClick={() => setDeleteOpen(true)}>删除个人账户</Button>
        </Space>
        {systemToken && <Input readOnly value={systemToken} aria-label="系统访问令牌" style={{ marginTop: 12 }} />}
        {inviteLink && <Input readOnly value={inviteLink} aria-label="邀请链接" style={{ marginTop: 12 }} />}
      </Card>
      <Card title="账号绑定" size="small">
        <Space wrap>
          {status?.wechat_login && <Button icon={<WechatOutlined />} onClick={() => setWechatOpen(true)}>绑定微信账号</Button>}
          {status?.github_oauth && <Button icon={<GithubOutlined />} onClick={() => void bindGithub()}>绑定 GitHub 账号</Button>}
          {status?.lark_client_id && <Button onClick={() => void bindLark()}>绑定飞书账号</Button>}
          <Button onClick={() => setEmailOpen(true)}>绑定邮箱地址</Button>
        </Space>
      </Card>

      <Modal open={deleteOpen} title="危险操作" okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onCancel={() => setDeleteOpen(false)} onOk={() => void deleteAccount()}>
        <Typography.Paragraph type="danger">您正在删除自己的帐户，将清空所有数据且不可恢复</Typography.Paragraph>
        <Input placeholder={`输入你的账户名 ${user?.username ?? ''} 以确认删除`} value={confirmName} onChange={(e) => setConfirmName(e.target.value)} />
      </Modal>

      <Modal open={emailOpen} title="绑定邮箱地址" okText="确认绑定" cancelText="取消" onCancel={() => setEmailOpen(false)} onOk={() => void bindEmail()}>
        <Space direction="vertical" style={{ width: '100%' }}>
          <Space.Compact style={{ width: '100%' }}>
            <Input placeholder="输入邮箱地址" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
            <Button disabled={countdown > 0} onClick={() => void sendEmailCode()}>
              {countdown > 0 ? `重新发送 (${countdown})` : '获取验证码'}
            </Button>
          </Space.Compact>
          <Input placeholder="验证码" value={emailCode} onChange={(e) => setEmailCode(e.target.value)} />
        </Space>
      </Modal>

      <Modal open={wechatOpen} title="绑定微信账号" okText="绑定" cancelText="取消" onCancel={() => setWechatOpen(false)} onOk={() => void bindWechat()}>
        {status?.wechat_qrcode && <Image src={status.wechat_qrcode} alt="微信二维码" preview={false} />}
        <p>微信扫码关注公众号，输入「验证码」获取验证码（三分钟内有效）</p>
        <Input placeholder="验证码" value={wechatCode} onChange={(e) => setWechatCode(e.target.value)} />
      </Modal>
    </Space>
  );
}
