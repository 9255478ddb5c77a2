import { Alert, Button, Card, Form, Input } from 'antd';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { confirmPasswordReset } from '../../api/users/confirm-password-reset';
import { copyText } from '../../lib/clipboard';
import { toast } from '../../lib/toast';

/** /user/reset?email=&token=: the link of the reset mail. Submitting sets a new password, shows and copies it. */
export default function ResetConfirmPage() {
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [loading, setLoading] = useState(false);

  const submit = async () => {
    setLoading(true);
    try {
      const res = await confirmPasswordReset(email, token);
      if (!res.success || !res.data) return;
      setPassword(res.data);
      if (await copyText(res.data)) toast.success(`密码已重置，新密码已复制到剪贴板：${res.data}`);
    } catch {
      /* shown by the request client */
    } finally {
      setLoading(false);
    }
  };

  const valid = email !== '' && token !== '';
  return (
    <Card className="auth-card" title="密码重置确认">
      {!valid && <Alert type="error" showIcon style={{ marginBottom: 16 }} title="重置链接无效，请重新申请密码重置" />}
      <Form layout="vertical">
        <Form.Item label="邮箱地址">
          <Input value={email} readOnly aria-label="邮箱地址" />
        </Form.Item>
        {password && (
          <Form.Item label="新密码" extra="请使用新密码登录，并尽快在个人设置中修改">
            <Input value={password} readOnly aria-label="新密码" />
          </Form.Item>
        )}
        <Button type="primary" block loading={loading} disabled={!valid || password !== ''} onClick={() => void submit()}>
          {password ? '密码已重置' : '提交'}
        </Button>
      </Form>
    </Card>
  );
}
