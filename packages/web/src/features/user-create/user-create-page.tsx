import { createUserSchema, firstIssueMessage } from '@model-relay/contract';
import { Button, Card, Form, Input, Space } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useCreateUser } from '../../api/users/create-user';
import { toast } from '../../lib/toast';

/** /user/add: an admin creates a user (username, display name, password). */
export default function UserCreatePage() {
  const navigate = useNavigate();
  const [values, setValues] = useState({ username: '', display_name: '', password: '' });
  const create = useCreateUser();
  /** Set by a submit with the username or password empty: each missing field then says so. */
  const [tried, setTried] = useState(false);
  const missing = (key: 'username' | 'password', help: string) => (tried && !values[key] ? { validateStatus: 'error' as const, help } : {});
  const set = (key: keyof typeof values) => (e: React.ChangeEvent<HTMLInputElement>) => setValues({ ...values, [key]: e.target.value });

  const submit = async () => {
    // docs/console.md §5: nothing is sent while username or password is empty.
    if (!values.username || !values.password) {
      setTried(true);
      return;
    }
    const parsed = createUserSchema.safeParse(values);
    if (!parsed.success) {
      toast.error(firstIssueMessage(parsed.error));
      return;
    }
    try {
      await create.mutateAsync(values);
      toast.success('用户账户创建成功！');
      navigate('/user');
    } catch {
      /* shown by the request client */
    }
  };

  return (
    <Card className="page-card" title="创建新用户账户" style={{ maxWidth: 640 }}>
      <Form layout="vertical" onFinish={() => void submit()}>
        <Form.Item label="用户名" required {...missing('username', '请输入用户名')}>
          <Input placeholder="请输入用户名" value={values.username} onChange={set('username')} maxLength={12} />
        </Form.Item>
        <Form.Item label="显示名称">
          <Input placeholder="请输入显示名称" value={values.display_name} onChange={set('display_name')} maxLength={20} />
        </Form.Item>
        <Form.Item label="密码" required extra="最短 8 位" {...missing('password', '请输入密码')}>
          <Input.Password placeholder="请输入密码，最短 8 位" value={values.password} onChange={set('password')} maxLength={20} autoComplete="new-password" />
        </Form.Item>
        <Space>
          <Button onClick={() => navigate('/user')}>取消</Button>
          <Button type="primary" htmlType="submit" loading={create.isPending}>
            提交
          </Button>
        </Space>
      </Form>
    </Card>
  );
}
