import { App, Button, Input, Space, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { toast } from '../../lib/toast';
import { OptionSection } from './option-section';
import { useOptions } from './use-options';

/** 系统设置: server address, login switches, e-mail whitelist, SMTP, OAuth, WeChat, Message Pusher, Turnstile. */
export default function SystemSettings() {
  const { options, loaded, saveMany } = useOptions();
  const { modal } = App.useApp();
  const [domains, setDomains] = useState<string[]>([]);
  const [newDomain, setNewDomain] = useState('');
  useEffect(() => {
    setDomains((options.EmailDomainWhitelist ?? '').split(',').map((d) => d.trim()).filter(Boolean));
  }, [options.EmailDomainWhitelist]);
  if (!loaded) return null;

  // Turning password login off first asks; "false" is sent only on confirmation (docs/console.md §4).
  const beforeToggle = (key: string, next: boolean) =>
    key !== 'PasswordLoginEnabled' || next
      ? Promise.resolve(true)
      : new Promise<boolean>((resolve) =>
          modal.confirm({
            title: '确定要取消密码登录吗？',
            content: '取消密码登录将导致所有未绑定其他登录方式的用户（包括管理员）无法通过密码登录，确认取消？',
            okText: '确定',
            cancelText: '取消',
            onOk: () => resolve(true),
            onCancel: () => resolve(false),
          }),
        );

  const addDomain = () => {
    const domain = newDomain.trim();
    if (!domain || domains.includes(domain)) return;
    setDomains([...domains, domain]);
    setNewDomain('');
  };
  const saveDomains = async () => {
    if (await saveMany([['EmailDomainWhitelist', domains.join(',')]])) toast.success('保存成功');
  };

  return (
    <>
      <OptionSection
        title="通用设置"
        options={options}
        saveMany={saveMany}
        fields={[{ key: 'ServerAddress', label: '服务器地址', placeholder: '例如：https://yourdomain.com', span: 24, normalise: (v) => v.trim().replace(/\/$/, '') }]}
      />
      <OptionSection
        title="配置登录注册"
        options={options}
        saveMany={saveMany}
        beforeToggle={beforeToggle}
        fields={[
          { key: 'PasswordLoginEnabled', label: '允许通过密码进行登录', kind: 'switch' },
          { key: 'PasswordRegisterEnabled', label: '允许通过密码进行注册', kind: 'switch' },
          { key: 'EmailVerificationEnabled', label: '通过密码注册时需要进行邮箱验证', kind: 'switch' },
          { key: 'GitHubOAuthEnabled', label: '允许通过 GitHub 账户登录 & 注册', kind: 'switch' },
          { key: 'WeChatAuthEnabled', label: '允许通过微信登录 & 注册', kind: 'switch' },
          { key: 'RegisterEnabled', label: '允许新用户注册（此项为否时，新用户将无法以任何方式进行注册）', kind: 'switch' },
          { key: 'TurnstileCheckEnabled', label: '启用 Turnstile 用户校验', kind: 'switch' },
        ]}
      />
      <OptionSection
        title="配置邮箱域名白名单"
        options={options}
        saveMany={saveMany}
        fields={[{ key: 'EmailDomainRestrictionEnabled', label: '启用邮箱域名白名单', kind: 'switch' }]}
        extra={
          <Space orientation="vertical" style={{ width: '100%', marginBottom: 12 }}>
            <div>
              {domains.map((domain) => (
                <Tag key={domain} closable onClose={() => setDomains(domains.filter((d) => d !== domain))}>
                  {domain}
                </Tag>
              ))}
            </div>
            <Space.Compact style={{ maxWidth: 420 }}>
              <Input placeholder="输入新的允许的邮箱域名" value={newDomain} onChange={(e) => setNewDomain(e.target.value)} onPressEnter={addDomain} />
              <Button onClick={addDomain}>添加</Button>
            </Space.Compact>
            <Button type="primary" onClick={() => void saveDomains()}>
              保存邮箱域名白名单设置
            </Button>
          </Space>
        }
      />
      <OptionSection
        title="配置 SMTP"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'SMTPServer', label: 'SMTP 服务器地址', placeholder: '例如：smtp.qq.com' },
          { key: 'SMTPPort', label: 'SMTP 端口', placeholder: '默认: 587' },
          { key: 'SMTPAccount', label: 'SMTP 账户', placeholder: '通常是邮箱地址' },
          { key: 'SMTPFrom', label: 'SMTP 发送者邮箱', placeholder: '通常和邮箱地址保持一致' },
          { key: 'SMTPToken', label: 'SMTP 访问凭证', kind: 'secret' },
        ]}
      />
      <OptionSection
        title="配置 GitHub OAuth App"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'GitHubClientId', label: 'GitHub Client ID', placeholder: '输入你注册的 GitHub OAuth APP 的 ID' },
          { key: 'GitHubClientSecret', label: 'GitHub Client Secret', kind: 'secret' },
        ]}
      />
      <OptionSection
        title="配置飞书授权登录"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'LarkClientId', label: 'App ID', placeholder: '输入 App ID' },
          { key: 'LarkClientSecret', label: 'App Secret', kind: 'secret' },
        ]}
      />
      <OptionSection
        title="配置 WeChat Server"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'WeChatServerAddress', label: 'WeChat Server 服务器地址', placeholder: '例如：https://yourdomain.com' },
          { key: 'WeChatServerToken', label: 'WeChat Server 访问凭证', kind: 'secret' },
          { key: 'WeChatAccountQRCodeImageURL', label: '微信公众号二维码图片链接', placeholder: '输入一个图片链接' },
        ]}
      />
      <OptionSection
        title="配置 Message Pusher"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'MessagePusherAddress', label: 'Message Pusher 推送地址', placeholder: '例如：https://msgpusher.com/push/your_username' },
          { key: 'MessagePusherToken', label: 'Message Pusher 访问凭证', kind: 'secret' },
        ]}
      />
      <OptionSection
        title="配置 Turnstile"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'TurnstileSiteKey', label: 'Turnstile Site Key', placeholder: '输入你注册的 Turnstile Site Key' },
          { key: 'TurnstileSecretKey', label: 'Turnstile Secret Key', kind: 'secret' },
        ]}
      />
    </>
  );
}
