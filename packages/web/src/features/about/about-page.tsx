import { Card, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { RichContent } from '../../components/rich-content';
import { getAbout } from '../../api/status/get-about';

/** About: the configured About content, or a default text. */
export default function AboutPage() {
  const [content, setContent] = useState<string | undefined>();
  useEffect(() => {
    getAbout()
      .then((res) => setContent(res.success ? (res.data ?? '') : ''))
      .catch(() => setContent(''));
  }, []);
  if (content === undefined) return null;
  return (
    <Card className="page-card" title="关于">
      {content ? (
        <RichContent content={content} />
      ) : (
        <Typography.Paragraph>管理员尚未设置关于页面的内容。可在 设置 → 其他设置 中填写，支持 Markdown 与 HTML，也可填写一个网址以内嵌显示。</Typography.Paragraph>
      )}
    </Card>
  );
}
