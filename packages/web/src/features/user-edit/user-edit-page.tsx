import { firstIssueMessage, LIMIT_FIELDS, updateSelfSchema, updateUserSchema, usernameChangeProblem, USERNAME_MAX, type Limits, type UserDto } from '@model-relay/contract';
import { LimitInputs, NO_LIMITS } from '../../components/limit-inputs';
import { Button, Card, Form, Input, InputNumber, Select, Space } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useGroups } from '../../api/groups/get-groups';
import { useSelf } from '../../api/users/get-self';
import { useUserDetail } from '../../api/users/get-user';
import { useUpdateSelf } from '../../api/users/update-self';
import { useUpdateUser } from '../../api/users/update-user';
import { renderQuota } from '../../lib/format';
import { isAdmin, useUser } from '../../lib/session';
import { getStoredUser, setStoredUser } from '../../lib/storage';
import { toast } from '../../lib/toast';

interface EditForm extends Limits {
  username: string;
  display_name: string;
  password: string;
  group: string;
  quota: number;
}

/** /user/edit (own profile) and /user/edit/{id} (an admin edits someone else: also group and quota). */
export default function UserEditPage() {
  const { id } = useParams();
  const navigate = useNavigate();
  const me = useUser();
  const editingOther = Boolean(id) && isAdmin(me) && Number(id) !== me?.id;
  const [form] = Form.useForm<EditForm>();
  const quota = Form.useWatch('quota', form);
  const limits = Form.useWatch((values: EditForm) => Object.fromEntries(LIMIT_FIELDS.map((f) => [f, values[f] ?? 0])) as unknown as Limits, form) ?? NO_LIMITS;
  const other = useUserDetail(id ? Number(id) : undefined);
  const own = useSelf(!id);
  const user: UserDto | undefined = id ? other.data : own.data;
  const loadedGroups = useGroups(editingOther).data;
  const [groups, setGroups] = useState<string[]>([]);
  const updateUser = useUpdateUser();
  const updateSelf = useUpdateSelf();

  useEffect(() => {
    if (loadedGroups) setGroups((g) => [...new Set([...loadedGroups, ...g])]);
  }, [loadedGroups]);
  useEffect(() => {
    // The password is never prefilled (and not touched here, so typing before the load finishes is kept).
    if (user) {
      form.setFieldsValue({
        username: user.username,
        display_name: user.display_name,
        group: user.group,
        quota: user.quota,
        rpm_limit: user.rpm_limit ?? 0,
        tpm_limit: user.tpm_limit ?? 0,
        daily_quota_limit: user.daily_quota_limit ?? 0,
        monthly_quota_limit: user.monthly_quota_limit ?? 0,
      });
    }
  }, [user, form]);

  const submit = async (values: EditForm) => {
    const body = { username: values.username, display_name: values.display_name ?? '', password: values.password ?? '' };
    // The server's own schemas, with the same messages.
    // An admin editing someone else also sends the group, the quota and the limits (0 = none).
    const adminFields = editingOther ? { group: values.group, quota: values.quota, ...Object.fromEntries(LIMIT_FIELDS.map((f) => [f, Math.trunc(Number(values[f] ?? 0))])) } : {};
    const parsed = id ? updateUserSchema.safeParse({ ...body, id: Number(id), ...adminFields }) : updateSelfSchema.safeParse(body);
    if (!parsed.success) {
      toast.error(firstIssueMessage(parsed.error));
      return;
    }
    // A new name must follow the rules; the account's own (an imported one may be longer) is kept as it is.
    const renamed = user && usernameChangeProblem(parsed.data.username ?? '', user.username);
    if (renamed) {
      toast.error(renamed);
      return;
    }
    try {
      if (id) await updateUser.mutateAsync({ ...body, id: Number(id), ...adminFields, ...(editingOther ? { quota: Math.trunc(Number(values.quota)) } : {}) });
      else await updateSelf.mutateAsync(body);
      toast.success('用户信息更新成功！');
      if (!id) {
        const stored = getStoredUser();
        if (stored) setStoredUser({ ...stored, username: values.username, display_name: values.display_name });
      }
      form.setFieldValue('password', '');
    } catch {
      /* shown by the request client */
    }
  };

  return (
    <Card className="page-card" title="更新用户信息" style={{ maxWidth: 640 }}>
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)}>
        <Form.Item label="用户名" name="username" rules={[{ required: true, message: '请输入用户名' }]}>
          <Input placeholder="请输入新的用户名" maxLength={Math.max(USERNAME_MAX, user?.username.length ?? 0)} />
        </Form.Item>
        <Form.Item label="密码" name="password">
          <Input.Password placeholder="请输入新的密码，最短 8 位" autoComplete="new-password" maxLength={20} />
        </Form.Item>
        <Form.Item label="显示名称" name="display_name">
          <Input placeholder="请输入新的显示名称" maxLength={20} />
        </Form.Item>
        {editingOther && (
          <>
            <Form.Item label="分组" name="group">
              <Select
                showSearch
                placeholder="请选择分组"
                options={groups.map((g) => ({ value: g, label: g }))}
                // New group names can be typed and added (docs/console.md §2).
                onSearch={(text) => text && !groups.includes(text) && setGroups((g) => [...g.filter((x) => x !== text), text])}
              />
            </Form.Item>
            {/* Raw quota units, with the amount they make beside the label (as in the token form). */}
            <Form.Item label={`剩余额度${typeof quota === 'number' ? `（${renderQuota(quota)}）` : ''}`} name="quota">
              <InputNumber aria-label="剩余额度" min={0} precision={0} style={{ width: '100%' }} placeholder="请输入新的剩余额度" />
            </Form.Item>
            {/* The user's own limits; 0 falls back to the group's default (运营设置 → 分组限额). */}
            <LimitInputs value={limits} inForm />
          </>
        )}
        <Form.Item label="已绑定的 GitHub 账户">
          <Input readOnly value={user?.github_id ?? ''} placeholder="此项只读，需要用户通过个人设置页面的相关绑定按钮进行绑定，不可直接修改" />
        </Form.Item>
        <Form.Item label="已绑定的微信账户">
          <Input readOnly value={user?.wechat_id ?? ''} placeholder="此项只读，需要用户通过个人设置页面的相关绑定按钮进行绑定，不可直接修改" />
        </Form.Item>
        <Form.Item label="已绑定的邮箱账户">
          <Input readOnly value={user?.email ?? ''} placeholder="此项只读，需要用户通过个人设置页面的相关绑定按钮进行绑定，不可直接修改" />
        </Form.Item>
        <Space>
          <Button onClick={() => navigate('/setting')}>取消</Button>
          <Button type="primary" htmlType="submit" loading={updateUser.isPending || updateSelf.isPending}>
            提交
          </Button>
        </Space>
      </Form>
    </Card>
  );
}
