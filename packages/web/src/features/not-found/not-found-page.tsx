import { Result } from 'antd';

/** Any unknown path (docs/console.md §2). */
export default function NotFoundPage() {
  return <Result status="404" title="页面不存在" subTitle="请检查你的浏览器地址是否正确" />;
}
