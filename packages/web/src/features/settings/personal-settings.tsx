import { GithubOutlined, MailOutlined, WechatOutlined } from '@ant-design/icons';
import { AccountMessages, type UserDto } from '@model-relay/contract';
import { Button, Card, Descriptions, Image, Input, Modal, Space, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { Turnstile } from '../../components/turnstile';
import { bindEmail as bindEmailAddress } from '../../api/oauth/bind-email';
import { bindWechat as bindWechatAccount } from '../../api/oauth/bind-wechat';
import { deleteSelf } from '../../api/users/delete-self';
import { generateAccessToken } from '../../api/users/generate-access-token';
import { getInviteCode } from '../../api/users/get-invite-code';
import { readSelf } from '../../api/users/get-self';
import { logout } from '../../api/users/logout';
import { sendVerificationCode } from '../../api/verification/send-verification-code';
import { copyText } from '../../lib/clipboard';
import { openAuthorization } from '../../lib/oauth';
import { useStatus, useUser } from '../../lib/session';
import { setStoredUser } from '../../lib/storage';
import { toast } from '../../lib/toast';
import { useCountdown } from '../../lib/use-countdown';

/** Personal settings (docs/console.md §2): profile, system token, invite link, account deletion, bindings. */
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
  // The resend button counts down 30 seconds (docs/console.md §4).
  const [countdown, startCountdown] = useCountdown();
  const [turnstileToken, setTurnstileToken] = useState('');
  const onVerify = useCallback((token: string) => setTurnstileToken(token), []);
  // The accounts bound so far, read fresh from the server (the stored user may predate a binding).
  const [self, setSelf] = useState<UserDto | undefined>();
  const refreshSelf = useCallback(async () => {
    const res = await readSelf();
    if (res.success && res.data) {
      setSelf(res.data);
      setStoredUser(res.data);
    }
  }, []);
  useEffect(() => {
    refreshSelf().catch(() => undefined);
  }, [refreshSelf]);

  const generateToken = async () => {
    const res = await generateAccessToken();
    if (!res.success || !res.data) return;
    setSystemToken(res.data);
    if (await copyText(res.data)) toast.success('令牌已重置并已复制到剪贴板');
  };

  const copyInvite = async () => {
    const res = await getInviteCode();
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
    const res = await deleteSelf();
    if (!res.success) return;
    toast.success('账户已删除！');
    await logout().catch(() => undefined);
    setStoredUser(undefined);
    navigate('/login');
  };

  // docs/console.md §5: an empty address sends nothing; binding with an empty code sends nothing.
  const sendEmailCode = async () => {
    if (!email.trim()) return;
    if (status?.turnstile_check && !turnstileToken) {
      toast.info(AccountMessages.turnstileRunning);
      return;
    }
    try {
      const res = await sendVerificationCode(email.trim(), turnstileToken);
      if (res.success) {
        toast.success(AccountMessages.codeSent);
        startCountdown(30);
      }
    } catch {
      /* shown by the request client */
    }
  };

  const bindEmail = async () => {
    if (!emailCode.trim()) return;
    try {
      const res = await bindEmailAddress(email.trim(), emailCode.trim());
      if (res.success) {
        toast.success(AccountMessages.emailBound);
        setEmailOpen(false);
        setEmailCode('');
        await refreshSelf();
      }
    } catch {
      /* shown by the request client */
    }
  };

  const bindWechat = async () => {
    if (!wechatCode.trim()) return;
    try {
      const res = await bindWechatAccount(wechatCode.trim());
      if (res.success) {
        toast.success(AccountMessages.wechatBound);
        setWechatOpen(false);
        setWechatCode('');
        await refreshSelf();
      }
    } catch {
      /* shown by the request client */
    }
  };

  const bind = (provider: 'github' | 'lark') => void openAuthorization(provider, status).catch(() => undefined);
  const boundText = (value: string | undefined) => (value ? value : <Typography.Text type="secondary">未绑定</Typography.Text>);

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
        <Descriptions size="small" column={1} style={{ marginBottom: 12 }}>
          <Descriptions.Item label="邮箱">{boundText(self?.email)}</Descriptions.Item>
          <Descriptions.Item label="GitHub">{boundText(self?.github_id)}</Descriptions.Item>
          <Descriptions.Item label="微信">{boundText(self?.wechat_id)}</Descriptions.Item>
          <Descriptions.Item label="飞书">{boundText(self?.lark_id)}</Descriptions.Item>
        </Descriptions>
        <Space wrap>
          {status?.wechat_login && <Button icon={<WechatOutlined />} onClick={() => setWechatOpen(true)}>绑定微信账号</Button>}
          {status?.github_oauth && <Button icon={<GithubOutlined />} onClick={() => bind('github')}>绑定 GitHub 账号</Button>}
          {status?.lark_client_id && <Button onClick={() => bind('lark')}>绑定飞书账号</Button>}
          <Button icon={<MailOutlined />} onClick={() => setEmailOpen(true)}>绑定邮箱地址</Button>
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
          <Turnstile onVerify={onVerify} />
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
