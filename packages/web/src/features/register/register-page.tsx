import { Button, Card, Form, Input, Space } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { AccountMessages } from '@model-relay/contract';
import { Turnstile } from '../../components/turnstile';
import { register } from '../../api/users/register';
import { sendVerificationCode } from '../../api/verification/send-verification-code';
import { useStatus } from '../../lib/session';
import { StorageKeys } from '../../lib/storage';
import { toast } from '../../lib/toast';
import { useCountdown } from '../../lib/use-countdown';
import { checkRegistration } from './register-validation';

export default function RegisterPage() {
  const status = useStatus();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [form, setForm] = useState({ username: '', password: '', password2: '', email: '', verification_code: '' });
  const [turnstileToken, setTurnstileToken] = useState('');
  const [loading, setLoading] = useState(false);
  const [sending, setSending] = useState(false);
  const [countdown, startCountdown] = useCountdown();
  const onVerify = useCallback((token: string) => setTurnstileToken(token), []);

  // An invite code in the link is kept for the registration (local storage key "aff").
  useEffect(() => {
    const aff = params.get('aff');
    if (aff) localStorage.setItem(StorageKeys.aff, aff);
  }, [params]);

  const set = (key: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.target.value });

  const submit = async () => {
    const verdict = checkRegistration(form);
    if (verdict === 'empty') return;
    if (verdict !== 'ok') {
      toast.info(verdict);
      return;
    }
    if (status?.turnstile_check && !turnstileToken) {
      toast.info(AccountMessages.turnstileRunning);
      return;
    }
    setLoading(true);
    try {
      const body = { ...form, aff_code: localStorage.getItem(StorageKeys.aff) ?? '' };
      const res = await register(body, turnstileToken);
      if (res.success) {
        toast.success('注册成功！');
        navigate('/login');
      }
    } catch {
      /* shown by the request client */
    } finally {
      setLoading(false);
    }
  };

  const sendCode = async () => {
    if (!form.email.trim()) return;
    if (status?.turnstile_check && !turnstileToken) {
      toast.info(AccountMessages.turnstileRunning);
      return;
    }
    setSending(true);
    try {
      const res = await sendVerificationCode(form.email.trim(), turnstileToken);
      if (res.success) {
        toast.success(AccountMessages.codeSent);
        startCountdown(30);
      }
    } catch {
      /* shown by the request client */
    } finally {
      setSending(false);
    }
  };

  return (
    <Card className="auth-card" title="新用户注册">
      <Form layout="vertical" onFinish={() => void submit()}>
        <Form.Item extra="最长 12 位">
          <Input placeholder="输入用户名，最长 12 位" value={form.username} onChange={set('username')} maxLength={12} autoComplete="username" />
        </Form.Item>
        <Form.Item extra="8 到 20 位">
          <Input.Password placeholder="输入密码，最短 8 位，最长 20 位" value={form.password} onChange={set('password')} maxLength={20} autoComplete="new-password" />
        </Form.Item>
        <Form.Item>
          <Input.Password placeholder="再次输入密码" value={form.password2} onChange={set('password2')} maxLength={20} autoComplete="new-password" />
        </Form.Item>
        {status?.email_verification && (
          <>
            <Form.Item>
              <Space.Compact style={{ width: '100%' }}>
                <Input placeholder="输入邮箱地址" value={form.email} onChange={set('email')} type="email" />
                <Button onClick={() => void sendCode()} loading={sending} disabled={countdown > 0}>
                  {countdown > 0 ? `重新发送 (${countdown})` : '获取验证码'}
                </Button>
              </Space.Compact>
            </Form.Item>
            <Form.Item>
              <Input placeholder="输入验证码" value={form.verification_code} onChange={set('verification_code')} />
            </Form.Item>
          </>
        )}
        <Turnstile onVerify={onVerify} />
        <Button type="primary" htmlType="submit" block loading={loading}>
          注册
        </Button>
      </Form>
      <div style={{ marginTop: 16 }}>
        已有账户？<Link to="/login">点击登录</Link>
      </div>
    </Card>
  );
}
