import { Card, Descriptions, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { RichContent } from '../../components/rich-content';
import { getHomePageContent } from '../../api/status/get-home-page-content';
import { formatTimestamp } from '../../lib/format';
import { DEFAULT_SYSTEM_NAME, useStatus } from '../../lib/session';

/** Home: the configured HomePageContent (Markdown, HTML or a URL), or a default overview. */
export default function HomePage() {
  const status = useStatus();
  const [content, setContent] = useState<string | undefined>();
  useEffect(() => {
    getHomePageContent()
      .then((res) => setContent(res.success ? (res.data ?? '') : ''))
      .catch(() => setContent(''));
  }, []);
  if (content === undefined) return null;
  if (content) return <RichContent content={content} />;
  return (
    <Card className="page-card" title={`欢迎使用 ${status?.system_name || DEFAULT_SYSTEM_NAME}`}>
      <Typography.Paragraph>
        这是一个自托管的 AI 模型 API 网关：用一个兼容 OpenAI 的接口访问多家模型服务，通过令牌分发访问权限并精确计量额度。
      </Typography.Paragraph>
      <Descriptions column={1} bordered size="small" title="系统状况">
        <Descriptions.Item label="名称">{status?.system_name || DEFAULT_SYSTEM_NAME}</Descriptions.Item>
        <Descriptions.Item label="版本">{status?.version ?? '-'}</Descriptions.Item>
        <Descriptions.Item label="启动时间">{status?.start_time ? formatTimestamp(status.start_time) : '-'}</Descriptions.Item>
        <Descriptions.Item label="邮箱验证">{status?.email_verification ? '已启用' : '未启用'}</Descriptions.Item>
        <Descriptions.Item label="GitHub 登录">{status?.github_oauth ? '已启用' : '未启用'}</Descriptions.Item>
        <Descriptions.Item label="微信登录">{status?.wechat_login ? '已启用' : '未启用'}</Descriptions.Item>
        <Descriptions.Item label="Turnstile 校验">{status?.turnstile_check ? '已启用' : '未启用'}</Descriptions.Item>
      </Descriptions>
    </Card>
  );
}
