import { AccountMessages } from '@model-relay/contract';
import { Button, Card, Form, Input } from 'antd';
import { useCallback, useState } from 'react';
import { Turnstile } from '../../components/turnstile';
import { requestPasswordReset } from '../../api/password-reset/request-password-reset';
import { useStatus } from '../../lib/session';
import { toast } from '../../lib/toast';
import { useCountdown } from '../../lib/use-countdown';

/** docs/console.md §4: the reset request button stays disabled for 30 seconds after a click. */
const RESEND_SECONDS = 30;

/** /reset: asks for a password-reset e-mail (GET /api/reset_password). */
export default function ResetRequestPage() {
  const status = useStatus();
  const [turnstileToken, setTurnstileToken] = useState('');
  const [loading, setLoading] = useState(false);
  const [countdown, startCountdown] = useCountdown();
  const onVerify = useCallback((token: string) => setTurnstileToken(token), []);

  const submit = async ({ email }: { email: string }) => {
    if (status?.turnstile_check && !turnstileToken) {
      toast.info(AccountMessages.turnstileRunning);
      return;
    }
    startCountdown(RESEND_SECONDS);
    setLoading(true);
    try {
      const res = await requestPasswordReset(email.trim(), turnstileToken);
      if (res.success) toast.success(AccountMessages.resetMailSent);
    } catch {
      /* shown by the request client */
    } finally {
      setLoading(false);
    }
  };

  return (
    <Card className="auth-card" title="密码重置">
      <Form layout="vertical" onFinish={(values) => void submit(values)}>
        <Form.Item name="email" rules={[{ required: true, whitespace: true, message: AccountMessages.emailRequired }]}>
          <Input placeholder="邮箱地址" type="email" autoComplete="email" />
        </Form.Item>
        <Turnstile onVerify={onVerify} />
        <Button type="primary" htmlType="submit" block loading={loading} disabled={countdown > 0}>
          {countdown > 0 ? `重试 (${countdown})` : '提交'}
        </Button>
      </Form>
    </Card>
  );
}
